import type { ChildProcess } from 'node:child_process';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves once the child has exited (immediately if it already has). */
export function exitOf(child: ChildProcess): Promise<ExitInfo> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** How long a stopped child's pipes may stay open after it exited (a grandchild can hold them). */
const OUTPUT_DRAIN_MS = 2_000;

/**
 * Sends `signal`, waits up to `graceMs` for the child to exit, then sends SIGKILL. Resolves once the child
 * has exited and its output has been read to the end, so every line it wrote has reached the caller's
 * listeners. Always resolves with how the child ended, so callers can stop things in `finally` blocks
 * without extra error handling.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
  const exited = exitOf(child);
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  if (signal !== 'SIGKILL') {
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const first = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') child.kill('SIGKILL');
  }
  const ended = await exited;
  await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, OUTPUT_DRAIN_MS)))]);
  clearTimeout(timer);
  return ended;
}

/** Whether the process table still holds this pid (alive, or a zombie not yet reaped by its parent). */
export function isInProcessTable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function describeExit({ code, signal }: ExitInfo): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/** Resolves with an error when the child fails to spawn or exits; 'close' waits for its output to drain. */
export function deathOf(child: ChildProcess, what: string): Promise<Error> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve(new Error(`${what} could not be run: ${error.message}`)));
    child.once('close', (code, signal) => resolve(new Error(`${what} ${describeExit({ code, signal })}`)));
  });
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
