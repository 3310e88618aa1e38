import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and collects its output. Bounded: it is killed after `timeoutMs`, so no load
 * generator or install step can outlive the benchmark.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number; onLine?: (line: string) => void },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    if (options.onLine) {
      createInterface({ input: child.stdout }).on('line', options.onLine);
      createInterface({ input: child.stderr }).on('line', options.onLine);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A long-lived helper process (nginx, gubernator) with the last lines of its output kept for error messages. */
export interface Daemon {
  child: ChildProcess;
  output(): string[];
  stop(): Promise<void>;
}

export function startDaemon(command: string, args: string[], options: SpawnOptions = {}): Daemon {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 100) lines.shift();
  };
  if (child.stdout) createInterface({ input: child.stdout }).on('line', keep);
  if (child.stderr) createInterface({ input: child.stderr }).on('line', keep);
  child.on('error', (error) => keep(`spawn error: ${error.message}`));
  return {
    child,
    output: () => [...lines],
    stop: () => stopProcess(child),
  };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Only ever our own children. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The first line a daemon prints on stdout (a port, "ready"); the daemon is stopped when none comes in `timeoutMs`. */
export async function firstLineOf(daemon: Daemon, timeoutMs: number): Promise<string> {
  const lines = createInterface({ input: daemon.child.stdout! });
  const timer = setTimeout(() => void daemon.stop(), timeoutMs);
  try {
    const [line] = (await Promise.race([
      once(lines, 'line'),
      once(daemon.child, 'exit').then(() => {
        throw new Error(`exited before it was ready: ${daemon.output().slice(-5).join(' | ')}`);
      }),
    ])) as [string];
    return line;
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}
