import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '@gateway/testing';
import { runCommand } from '../lib/process';

/** The working tree itself, changes included, as a build to compare. */
export const WORKING_TREE = '.';

/** A built checkout of one git revision whose services can run beside the others'. */
export interface Checkout {
  /** As given on the command line. */
  ref: string;
  /** The ref and its commit; for the working tree, its HEAD and whether it has uncommitted changes. */
  label: string;
  root: string;
  remove(): Promise<void>;
}

async function git(args: string[], cwd = repoRoot()): Promise<string> {
  const result = await runCommand('git', args, { cwd, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout.trim();
}

/** `npm run build` in a checkout: every workspace compiled by tsc, as the images build it. */
export async function buildIn(root: string): Promise<void> {
  const result = await runCommand('npm', ['run', 'build', '--silent'], { cwd: root, timeoutMs: 15 * 60_000 });
  if (result.code !== 0)
    throw new Error(`npm run build in ${root} failed:\n${(result.stdout + result.stderr).slice(-4000)}`);
}

/**
 * A worktree's node_modules without a second install, when its lockfile is this checkout's: every package is a link
 * to this checkout's copy, except the workspaces' own links (@gateway/*), which are relative and so point into the
 * worktree's libs and services.
 */
async function linkNodeModules(from: string, to: string): Promise<void> {
  const source = join(from, 'node_modules');
  const target = join(to, 'node_modules');
  await mkdir(target);
  for (const entry of await readdir(source)) {
    if (entry !== '@gateway') {
      await symlink(join(source, entry), join(target, entry));
      continue;
    }
    await mkdir(join(target, entry));
    for (const workspace of await readdir(join(source, entry))) {
      await symlink(await readlink(join(source, entry, workspace)), join(target, entry, workspace));
    }
  }
}

/**
 * Checks `ref` out into a git worktree under `workDir` and builds it (`npm run build`), with this checkout's
 * packages when the lockfiles match and `npm ci` when they do not. WORKING_TREE is this checkout, which the caller
 * builds.
 */
export async function prepareCheckout(ref: string, workDir: string, log: (message: string) => void): Promise<Checkout> {
  const here = repoRoot();
  if (ref === WORKING_TREE) {
    const head = (await git(['rev-parse', '--short=10', 'HEAD'])).trim();
    const dirty = (await git(['status', '--porcelain', '--untracked-files=no'])).length > 0;
    const label = `working tree (${head}${dirty ? ' + changes' : ''})`;
    return { ref, label, root: here, remove: async () => undefined };
  }
  const commit = await git(['rev-parse', '--verify', `${ref}^{commit}`]);
  const root = join(workDir, `build-${commit.slice(0, 12)}`);
  if (existsSync(root)) throw new Error(`${ref} names the same commit as another build (${commit.slice(0, 12)})`);
  log(`builds: ${ref} (${commit.slice(0, 10)}): git worktree in ${root}`);
  await git(['worktree', 'add', '--detach', root, commit]);
  const remove = async () => {
    await git(['worktree', 'remove', '--force', root]).catch(() => undefined);
  };
  try {
    const lockfile = await readFile(join(here, 'package-lock.json'), 'utf8');
    const theirs = await readFile(join(root, 'package-lock.json'), 'utf8');
    if (lockfile === theirs) await linkNodeModules(here, root);
    else {
      log(`builds: ${ref} has another package-lock.json: npm ci in its worktree`);
      const install = await runCommand('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, timeoutMs: 15 * 60_000 });
      if (install.code !== 0) throw new Error(`npm ci for ${ref} failed:\n${install.stderr.slice(-4000)}`);
    }
    log(`builds: ${ref}: npm run build`);
    await buildIn(root);
  } catch (error) {
    await remove();
    throw error;
  }
  const short = commit.slice(0, 10);
  return { ref, label: commit.startsWith(ref) ? short : `${ref} (${short})`, root, remove };
}
