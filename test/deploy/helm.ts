import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** The chart every deploy test renders. */
export const chartDir = join(root, 'charts', 'gateway');

/**
 * The pinned helm binary, built into the tools folder the first time (a few minutes on a fresh machine). The install
 * script takes a lock and returns at once when the pinned version is there, so test files may call this together.
 */
export function ensureHelm(): string {
  execFileSync('bash', [join(root, 'scripts', 'tools', 'install.sh'), 'helm'], { stdio: 'inherit' });
  return join(process.env.GATEWAY_TOOLS_DIR ?? join(root, '.tools'), 'bin', 'helm');
}

/** `helm template gateway charts/gateway --namespace gateway <args>`: the rendered manifests as text. */
export function helmTemplate(helm: string, args: string[]): string {
  return execFileSync(helm, ['template', 'gateway', chartDir, '--namespace', 'gateway', ...args], { encoding: 'utf8' });
}
