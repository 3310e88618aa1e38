import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

let cachedRoot: string | undefined;

/** The monorepo root: the nearest ancestor whose package.json declares workspaces (works from src and dist). */
export function repoRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown };
      if (parsed.workspaces) return (cachedRoot = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json with workspaces above ${__dirname}`);
    dir = parent;
  }
}

/** Where scripts/tools/install.sh puts its binaries; GATEWAY_TOOLS_DIR overrides the root as it does there. */
export function toolsBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.GATEWAY_TOOLS_DIR || join(repoRoot(), '.tools'), 'bin');
}

export function installScript(): string {
  return join(repoRoot(), 'scripts', 'tools', 'install.sh');
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** First executable named `name` on PATH, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The V8 flags a service runs with (package.json "gateway.nodeFlags"): its image (scripts/ci/dockerfiles.ts) and every
 * local launch (startService) read them here, so the two cannot drift apart.
 */
export function serviceNodeFlags(service: string, root: string = repoRoot()): string[] {
  const manifestPath = join(root, 'services', service, 'package.json');
  if (!existsSync(manifestPath)) return [];
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { gateway?: { nodeFlags?: string[] } };
  return manifest.gateway?.nodeFlags ?? [];
}
