import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { repoRoot, toolsBinDir } from '@gateway/testing';
import { runCommand } from './process';

export type ToolLookup = { ok: true; path: string; version: string } | { ok: false; reason: string };

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/sbin', '/usr/local/sbin', '/sbin']);
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

async function versionOf(path: string, args: string[]): Promise<string> {
  const result = await runCommand(path, args, { timeoutMs: 10_000 }).catch(() => undefined);
  const text = `${result?.stdout ?? ''}\n${result?.stderr ?? ''}`;
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean) ?? 'unknown'
  );
}

async function aptCandidate(pkg: string): Promise<string | undefined> {
  const policy = await runCommand('apt-cache', ['policy', pkg], { timeoutMs: 60_000 }).catch(() => undefined);
  const candidate = /Candidate:\s*(\S+)/.exec(policy?.stdout ?? '')?.[1];
  return candidate && candidate !== '(none)' ? candidate : undefined;
}

/**
 * A Debian-packaged tool (wrk, nginx): found on PATH, or installed with apt-get when missing. apt-cache policy
 * is asked first; `apt-get update` only runs when no candidate is known yet.
 */
export async function ensureDebianTool(
  binary: string,
  packages: string[],
  versionArgs: string[],
  log: (message: string) => void,
): Promise<ToolLookup> {
  const found = onPath(binary);
  if (found) return { ok: true, path: found, version: await versionOf(found, versionArgs) };
  if (process.getuid?.() !== 0) {
    return { ok: false, reason: `${binary} is missing; install one of: apt-get install ${packages.join(' | ')}` };
  }
  let updated = false;
  for (const pkg of packages) {
    let candidate = await aptCandidate(pkg);
    if (!candidate && !updated) {
      log(`${binary}: no apt candidate for ${pkg} yet; running apt-get update`);
      await runCommand('apt-get', ['update'], { timeoutMs: 300_000 });
      updated = true;
      candidate = await aptCandidate(pkg);
    }
    if (!candidate) continue;
    log(`${binary}: apt-get install -y ${pkg} (${candidate})`);
    const installed = await runCommand(
      'apt-get',
      ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=300', pkg],
      { timeoutMs: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
    );
    const path = onPath(binary);
    if (installed.code === 0 && path) return { ok: true, path, version: await versionOf(path, versionArgs) };
    log(`${binary}: installing ${pkg} failed: ${installed.stderr.trim().split('\n').slice(-3).join(' / ')}`);
  }
  return { ok: false, reason: `${binary}: none of ${packages.join(', ')} could be installed from Debian` };
}

/**
 * A Go tool built by scripts/tools/install.sh into .tools/bin (k6, gubernator); `<NAME>_BIN` points at another
 * binary. The script's own last words say why when it cannot be built.
 */
export async function ensureGoTool(
  tool: 'k6' | 'gubernator',
  versionArgs: string[],
  log: (message: string) => void,
): Promise<ToolLookup> {
  const override = process.env[`${tool.toUpperCase()}_BIN`];
  if (override) {
    if (!isExecutable(override))
      return { ok: false, reason: `${tool.toUpperCase()}_BIN=${override} is not executable` };
    return { ok: true, path: override, version: await versionOf(override, versionArgs) };
  }
  const path = join(toolsBinDir(), tool);
  if (!isExecutable(path)) {
    log(`${tool}: not in .tools/bin; running scripts/tools/install.sh ${tool}`);
    const result = await runCommand('bash', [join(repoRoot(), 'scripts', 'tools', 'install.sh'), tool], {
      cwd: repoRoot(),
      timeoutMs: 900_000,
      onLine: (line) => log(line),
    });
    if (result.code !== 0 || !isExecutable(path)) {
      // The script's last "[tools] error:" line says why (e.g. the module proxy's 403 and its message).
      const why = `${result.stdout}\n${result.stderr}`
        .split('\n')
        .filter((line) => line.startsWith('[tools] error:'))
        .map((line) =>
          line
            .slice('[tools] error:'.length)
            .replace(/\\n\\t/g, ' ')
            .trim(),
        )
        .at(-1);
      return { ok: false, reason: `scripts/tools/install.sh ${tool} failed: ${why || `exit code ${result.code}`}` };
    }
  }
  return { ok: true, path, version: stampedVersion(tool) ?? (await versionOf(path, versionArgs)) };
}

/**
 * The version install.sh built, from its stamp file: a Go binary built from module source may call itself a
 * dev build, and the gubernator pin may have been replaced by the newest version the module proxy serves.
 */
function stampedVersion(tool: string): string | undefined {
  try {
    return readFileSync(join(toolsBinDir(), `.${tool}.version`), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
