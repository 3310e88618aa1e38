import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { deathOf, stopChild, type ExitInfo } from './child-process';
import { ServiceStartError } from './infra.error';
import { trackUntilExit } from './launched-children';
import { OutputTail, readLines } from './output-tail';
import { repoRoot, serviceNodeFlags } from './repo-paths';

export interface StartServiceOptions {
  /**
   * Listener names (the `listener` field of the listening lines) to wait for, e.g. ['http', 'grpc'].
   * Default: the first listening line, whatever its name.
   */
  listeners?: string[];
  /** How long the service may take to print them; default 20 s. */
  timeoutMs?: number;
  /** Entry file relative to the repo root; default services/<name>/src/main.ts. */
  entry?: string;
  /** Working directory; default the repo root (where tsx resolves). */
  cwd?: string;
  /**
   * The checkout whose service runs; default this one. The benchmark's comparison of builds (bench/builds) starts
   * the same service from several checkouts, each built in its own git worktree.
   */
  root?: string;
  /** Base environment under `env`; default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Output lines kept for diagnostics; default 200. */
  tailLines?: number;
  /** How long stop() waits after its signal before SIGKILL; default 10 s. */
  stopGraceMs?: number;
  /** Sees every output line (the local stack forwards them to its console). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /**
   * Preloads the OpenTelemetry SDK as the images do (`--import libs/telemetry/src/register.ts`, the development
   * form of `--require @gateway/telemetry/register`), with OTEL_SERVICE_NAME=<name> unless `env` sets it. It
   * exports only what the OTEL_* variables of the environment ask for.
   */
  preloadTelemetry?: boolean;
  /**
   * Runs the compiled service (`node services/<name>/dist/main.js`, libs from their dist) as the images do, instead
   * of the sources through tsx. `npm run build` must have run; the benchmark measures this form.
   */
  compiled?: boolean;
}

export interface RunningService {
  name: string;
  /** URL of the first awaited listener. */
  url: string;
  /** URL per listener name, from the listening lines seen so far. */
  urls: Record<string, string>;
  process: ChildProcess;
  /** The last output lines, oldest first. */
  output(): string[];
  /** Sends `signal`, waits for exit, SIGKILL after the grace period. Safe to call more than once. */
  stop(signal?: NodeJS.Signals): Promise<ExitInfo>;
  /** Kills without a chance to clean up (crash tests). */
  kill9(): Promise<ExitInfo>;
}

interface ListeningLine {
  event: 'listening';
  listener?: string;
  url: string;
}

function parseListening(line: string): ListeningLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<ListeningLine>;
    return parsed.event === 'listening' && typeof parsed.url === 'string' ? (parsed as ListeningLine) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a service from source the way development does (`node --conditions=development --import tsx
 * services/<name>/src/main.ts`) with PORT=0 and NODE_ENV=test under `env`, and resolves once it has printed
 * the `"event":"listening"` line of every awaited listener.
 */
export function startService(
  name: string,
  env: NodeJS.ProcessEnv = {},
  options: StartServiceOptions = {},
): Promise<RunningService> {
  const root = options.root ?? repoRoot();
  const compiled = options.compiled === true && options.entry === undefined;
  const entry = options.entry ?? join('services', name, compiled ? 'dist' : 'src', compiled ? 'main.js' : 'main.ts');
  const timeoutMs = options.timeoutMs ?? 20_000;
  const wanted = options.listeners ?? [];
  const tail = new OutputTail(options.tailLines ?? 200);
  const urls: Record<string, string> = {};
  let firstUrl: string | undefined;

  const preload = !options.preloadTelemetry
    ? []
    : compiled
      ? ['--require', join(root, 'libs', 'telemetry', 'dist', 'register.js')]
      : ['--import', join(root, 'libs', 'telemetry', 'src', 'register.ts')];
  const flags = options.entry === undefined ? serviceNodeFlags(name, root) : [];
  const loader = compiled ? [] : ['--conditions=development', '--import', 'tsx'];
  const telemetryEnv = options.preloadTelemetry ? { OTEL_SERVICE_NAME: name } : {};
  const child = spawn(process.execPath, [...flags, ...loader, ...preload, entry], {
    cwd: options.cwd ?? root,
    env: { ...(options.baseEnv ?? process.env), NODE_ENV: 'test', PORT: '0', ...telemetryEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackUntilExit(name, child);

  const service: RunningService = {
    name,
    url: '',
    urls,
    process: child,
    output: () => tail.snapshot(),
    stop: (signal = 'SIGTERM') => stopChild(child, signal, options.stopGraceMs ?? 10_000),
    kill9: () => stopChild(child, 'SIGKILL'),
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      const missing = wanted.filter((listener) => !urls[listener]);
      fail(
        `${name} printed no listening line${missing.length ? ` for ${missing.join(', ')}` : ''} within ${timeoutMs} ms`,
      );
    }, timeoutMs);

    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The child is killed first so that its last words are in the tail the error reports.
      void stopChild(child, 'SIGKILL').then(() => reject(new ServiceStartError(name, message, tail.snapshot())));
    };

    const onLine = (stream: 'stdout' | 'stderr') => (line: string) => {
      tail.push(line);
      options.onLine?.(line, stream);
      const listening = stream === 'stdout' ? parseListening(line) : undefined;
      if (!listening) return;
      urls[listening.listener ?? 'default'] = listening.url;
      firstUrl ??= listening.url;
      if (!settled && wanted.every((listener) => urls[listener])) {
        settled = true;
        clearTimeout(timer);
        service.url = (wanted[0] ? urls[wanted[0]] : firstUrl) ?? listening.url;
        resolve(service);
      }
    };
    readLines(child.stdout, onLine('stdout'));
    readLines(child.stderr, onLine('stderr'));

    void deathOf(child, name).then((error) => fail(`${error.message} before it was listening`));
  });
}
