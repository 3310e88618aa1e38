import Ajv from 'ajv';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * skaffold.yaml against the JSON schema of its apiVersion, as published in the skaffold Go module (the version
 * scripts/tools/install.sh pins), and against the repository: one artifact per service built from the root with its
 * own Dockerfile, the Helm release wired to every artifact's image, a dev profile with the sandbox and a
 * production-like one without. scripts/ci/chart-checks.sh also runs skaffold itself on it.
 */
jest.setTimeout(300_000);

const root = join(__dirname, '..', '..');
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const config = parse(readFileSync(join(root, 'skaffold.yaml'), 'utf8')) as Obj;
const services = readdirSync(join(root, 'services')).filter((name) =>
  existsSync(join(root, 'services', name, 'Dockerfile')),
);
const templateName = (image: string) => image.replace(/[-./:]/g, '_');

function skaffoldSchema(version: string): object {
  const pin = /^SKAFFOLD_VERSION="(v[^"]+)"$/m.exec(
    readFileSync(join(root, 'scripts', 'tools', 'install.sh'), 'utf8'),
  )![1];
  const download = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `github.com/GoogleContainerTools/skaffold/v2@${pin}`], {
      encoding: 'utf8',
    }),
  ) as { Dir: string };
  return JSON.parse(
    readFileSync(join(download.Dir, 'docs-v2', 'content', 'en', 'schemas', `${version}.json`), 'utf8'),
  ) as object;
}

function releases(deploy: Obj | undefined): Obj[] {
  return (deploy?.helm?.releases ?? []) as Obj[];
}

function expectImagesWired(release: Obj, images: string[]): void {
  for (const image of images) {
    const name = templateName(image);
    expect(release.setValueTemplates).toMatchObject({
      [`components.${image}.image.repository`]: `{{.IMAGE_REPO_${name}}}`,
      [`components.${image}.image.tag`]: `{{.IMAGE_TAG_${name}}}@{{.IMAGE_DIGEST_${name}}}`,
    });
  }
}

describe('skaffold.yaml', () => {
  it('is valid against the skaffold JSON schema of its apiVersion', () => {
    const version = String(config.apiVersion).replace('skaffold/', '');
    expect(version).toMatch(/^v4beta\d+$/);
    const validate = new Ajv({ allErrors: true, jsonPointers: true }).compile(skaffoldSchema(version));
    const valid = validate(config);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('builds one image per service from the repository root with the service Dockerfile', () => {
    const artifacts = config.build.artifacts as Obj[];
    expect(artifacts.map((artifact) => artifact.image).sort()).toEqual([...services].sort());
    for (const artifact of artifacts) {
      expect(artifact.context).toBe('.');
      expect(artifact.docker.dockerfile).toBe(`services/${artifact.image}/Dockerfile`);
    }
    expect(config.build.tagPolicy).not.toHaveProperty('sha256'); // the "latest"-like tagger
  });

  it('deploys the chart with every artifact image wired into its component', () => {
    const [release] = releases(config.deploy);
    expect(release).toMatchObject({ chartPath: 'charts/gateway', namespace: 'gateway' });
    for (const file of release!.valuesFiles as string[]) expect(existsSync(join(root, file))).toBe(true);
    expectImagesWired(release!, services);
  });

  it('has a dev profile with the sandbox and the dev dependencies of k8s/dev', () => {
    const dev = (config.profiles as Obj[]).find((profile) => profile.name === 'dev')!;
    expect(dev.activation).toEqual([{ command: 'dev' }]);
    const [release] = releases(dev.deploy);
    expect(release!.valuesFiles).toEqual(['charts/gateway/ci/dev-values.yaml']);
    const values = parse(readFileSync(join(root, 'charts/gateway/ci/dev-values.yaml'), 'utf8')) as Obj;
    expect(values.profile).toBe('dev');
    expect(values.components['platform-sandbox'].enabled).toBe(true);
    expectImagesWired(release!, services);
    for (const file of dev.manifests.rawYaml as string[]) expect(existsSync(join(root, file))).toBe(true);
    expect(dev.deploy.kubectl).toBeDefined();
  });

  it('has a production-like profile that neither builds nor deploys the sandbox', () => {
    const production = (config.profiles as Obj[]).find((profile) => profile.name === 'production-like')!;
    const patches = production.patches as { op: string; path: string }[];
    const removed = patches.filter((patch) => patch.op === 'remove').map((patch) => patch.path);
    const sandboxIndex = (config.build.artifacts as Obj[]).findIndex(
      (artifact) => artifact.image === 'platform-sandbox',
    );
    expect(removed).toContain(`/build/artifacts/${sandboxIndex}`);
    expect(removed.filter((path) => path.includes('platform-sandbox'))).toHaveLength(2);
    const [release] = releases(config.deploy);
    const values = parse(readFileSync(join(root, release!.valuesFiles[0] as string), 'utf8')) as Obj;
    expect(values.profile ?? 'production').toBe('production');
  });
});
