import type { ChildProcess } from 'node:child_process';

/**
 * The processes a test file started that have not exited yet, kept on the test's global object where the test
 * environment (jest.environment.js) finds them once the file is done: a process left running there would keep the
 * test run from ever ending.
 */
export const LAUNCHED_CHILDREN_KEY = '__gatewayLaunchedChildren';

type LaunchedChildren = Map<ChildProcess, string>;

export function trackUntilExit(name: string, child: ChildProcess): void {
  const holder = globalThis as typeof globalThis & { [LAUNCHED_CHILDREN_KEY]?: LaunchedChildren };
  const launched = (holder[LAUNCHED_CHILDREN_KEY] ??= new Map());
  if (child.exitCode !== null || child.signalCode !== null) return;
  launched.set(child, name);
  child.once('exit', () => launched.delete(child));
}
