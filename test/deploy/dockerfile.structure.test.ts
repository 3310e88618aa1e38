import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerfile as generatedDockerfile } from '../../scripts/ci/dockerfiles';
import { serviceNodeFlags } from '@gateway/testing';

/**
 * Docker cannot run here, so the images are checked by construction: every service has a multi-stage Dockerfile on
 * a pinned LTS Node slim image, installs production dependencies only, copies its own package and exactly the libs
 * its package.json dependencies lead to (no other service, no other lib), runs as a numeric non-root user and
 * starts with the telemetry preload.
 */
const root = join(__dirname, '..', '..');
const services = readdirSync(join(root, 'services')).filter((name) =>
  existsSync(join(root, 'services', name, 'package.json')),
);

interface Stage {
  name: string;
  lines: string[];
}

function stages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const result: Stage[] = [];
  for (const line of text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)$/i.exec(line);
    if (from) result.push({ name: from[2]!, lines: [] });
    else if (result.length === 0 && line.startsWith('ARG ')) {
      const [key, value] = line.slice(4).split('=');
      args[key!] = value ?? '';
    } else result.at(-1)?.lines.push(line);
  }
  return { args, stages: result };
}

/** The libs a workspace needs at run time: its @gateway dependencies, followed through the libs' own. */
function libClosure(dir: string, seen = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (!dependency.startsWith('@gateway/')) continue;
    const lib = dependency.slice('@gateway/'.length);
    if (seen.has(lib)) continue;
    seen.add(lib);
    libClosure(join('libs', lib), seen);
  }
  return seen;
}

function copiedPackages(lines: string[], pattern: RegExp): Set<string> {
  const copied = new Set<string>();
  for (const line of lines) {
    const match = pattern.exec(line);
    if (match) copied.add(match[1]!);
  }
  return copied;
}

describe.each(services)('services/%s/Dockerfile', (service) => {
  const path = join(root, 'services', service, 'Dockerfile');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const parsed = stages(text);
  const byName = (name: string) => parsed.stages.find((stage) => stage.name === name);
  const runtime = parsed.stages.at(-1);
  const expectedLibs = [...libClosure(join('services', service))].sort();

  it('exists and is what scripts/ci/dockerfiles.ts generates from the package.json files', () => {
    expect(text).not.toBe('');
    // On a mismatch: node --conditions=development --import tsx scripts/ci/dockerfiles.ts
    expect(text).toBe(generatedDockerfile(root, service));
  });

  it('is multi-stage: a build stage, a production-dependencies stage and a runtime stage', () => {
    expect(parsed.stages.map((stage) => stage.name)).toEqual(['build', 'deps', 'runtime']);
  });

  it('builds on a pinned Node LTS slim image (an even major of at least 20, full version or digest)', () => {
    const image = parsed.args.NODE_IMAGE ?? '';
    const match = /^node:(\d+)\.\d+\.\d+-[a-z]+-slim(@sha256:[a-f0-9]{64})?$/.exec(image);
    expect(match).not.toBeNull();
    const major = Number(match![1]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(20);
    expect(text).not.toMatch(/FROM\s+\S*:latest/);
  });

  it('installs production dependencies only for the runtime, with npm ci from the lockfile', () => {
    expect(byName('deps')!.lines).toContain(
      `RUN npm ci --omit=dev --workspace=@gateway/${service} --ignore-scripts --no-audit --no-fund`,
    );
    expect(runtime!.lines).toContain('COPY --from=deps /app/node_modules node_modules');
    expect(runtime!.lines.some((line) => /npm (ci|install|i)\b/.test(line))).toBe(false);
    expect(runtime!.lines.some((line) => line.includes('--from=build') && line.includes('node_modules'))).toBe(false);
  });

  it('copies the service and exactly the libs its package.json leads to, in every stage', () => {
    const libsIn = (lines: string[], pattern: RegExp) => [...copiedPackages(lines, pattern)].sort();
    expect(libsIn(byName('build')!.lines, /^COPY libs\/([a-z-]+) libs\/[a-z-]+$/)).toEqual(expectedLibs);
    expect(libsIn(byName('build')!.lines, /^COPY libs\/([a-z-]+)\/package\.json/)).toEqual(expectedLibs);
    expect(libsIn(byName('deps')!.lines, /^COPY libs\/([a-z-]+)\/package\.json/)).toEqual(expectedLibs);
    expect(libsIn(runtime!.lines, /^COPY --from=build \/repo\/libs\/([a-z-]+)\/dist /)).toEqual(expectedLibs);
    const services = (lines: string[]) => [...copiedPackages(lines, /services\/([a-z-]+)/)];
    for (const stage of parsed.stages) expect(services(stage.lines).filter((name) => name !== service)).toEqual([]);
    // Never the whole repository or whole folders of packages.
    expect(text).not.toMatch(/^COPY (\.|libs|services)\/? /m);
  });

  it('ships the runtime files of its libs (the .proto files proto-loader reads)', () => {
    if (expectedLibs.includes('proto')) {
      expect(runtime!.lines).toContain('COPY --from=build /repo/libs/proto/proto libs/proto/proto');
    }
  });

  it('runs as a numeric non-root user, without package managers, with the telemetry preload', () => {
    const user = runtime!.lines.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toMatch(/^USER [1-9]\d*(:[1-9]\d*)?$/);
    expect(runtime!.lines.join('\n')).toMatch(/rm -rf .*\/usr\/local\/bin\/npm .*\/usr\/local\/bin\/npx/);
    const flags = serviceNodeFlags(service, root).map((flag) => `"${flag}", `);
    expect(runtime!.lines.at(-1)).toBe(
      `CMD ["node", ${flags.join('')}"--require", "@gateway/telemetry/register", "dist/main.js"]`,
    );
  });
});

describe('the images', () => {
  it('can use the root node_modules alone: the lockfile has no workspace-local node_modules', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    expect(Object.keys(lock.packages).filter((key) => /^(libs|services)\/[^/]+\/node_modules\//.test(key))).toEqual([]);
  });

  it('are built from a context without dependencies, builds, local state, tests or secrets (.dockerignore)', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(
      expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.local', '.tools', '**/*.test.ts', '**/.env']),
    );
  });
});

describe("the images' Node for benchmarks", () => {
  it('is the version every image is built on (scripts/tools/image-node.sh)', () => {
    const printed = execFileSync('bash', [join(root, 'scripts', 'tools', 'image-node.sh'), '--version'], {
      encoding: 'utf8',
    }).trim();
    for (const service of services) {
      const image = stages(readFileSync(join(root, 'services', service, 'Dockerfile'), 'utf8')).args.NODE_IMAGE ?? '';
      expect(image.startsWith(`node:${printed}-`)).toBe(true);
    }
  });
});
