import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { deathOf, errorText, stopChild } from './child-process';
import { redactUri } from './connection-uri';
import { freePort } from './free-port';
import { InfraUnavailableError } from './infra.error';
import { OutputTail, readLines } from './output-tail';
import { findOnPath, isExecutable, toolsBinDir } from './repo-paths';
import { waitUntil } from './wait-until';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export interface EnsureNatsOptions {
  /** Where NATS_URL and NATS_SERVER_BIN are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The shared server tried when NATS_URL is unset (the local stack's usual one). */
  defaultUrl?: string;
  /** JetStream store of a server this call starts; default a temp dir that stop() deletes. */
  dataDir?: string;
  /** nats-server to run; default NATS_SERVER_BIN, then PATH, /usr/sbin, then .tools/bin. */
  binary?: string;
  /** How long a started server may take to answer; default 10 s. */
  startTimeoutMs?: number;
  /** Progress messages (what was found, what was started). */
  log?: (message: string) => void;
}

export interface NatsHandle {
  url: string;
  /** True when this call started the server; only then does stop() end it. */
  started: boolean;
  stop(): Promise<void>;
}

type Probe = { state: 'jetstream' } | { state: 'no-jetstream' | 'unreachable'; error: unknown };

/** Connects once and asks the JetStream API for its account info, which fails when JetStream is off. */
export async function probeNats(url: string, timeoutMs = 2_000): Promise<Probe> {
  let nc;
  try {
    nc = await connect({ servers: url, timeout: timeoutMs, reconnect: false, name: 'gateway-infra-probe' });
  } catch (error) {
    return { state: 'unreachable', error };
  }
  try {
    await nc.jetstreamManager({ timeout: timeoutMs });
    return { state: 'jetstream' };
  } catch (error) {
    return { state: 'no-jetstream', error };
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/**
 * A NATS server with JetStream: NATS_URL if set, else the one on 127.0.0.1:4222 if it answers with
 * JetStream, else a nats-server started on a free loopback port.
 */
export async function ensureNats(options: EnsureNatsOptions = {}): Promise<NatsHandle> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const attached = (url: string): NatsHandle => ({ url, started: false, stop: async () => undefined });

  if (env.NATS_URL) {
    const probe = await probeNats(env.NATS_URL);
    if (probe.state === 'jetstream') {
      log(`nats: using NATS_URL ${redactUri(env.NATS_URL)}`);
      return attached(env.NATS_URL);
    }
    const problem = probe.state === 'unreachable' ? 'does not answer' : 'answers but has JetStream disabled';
    throw new InfraUnavailableError(
      'nats',
      `NATS_URL=${redactUri(env.NATS_URL)} ${problem} (${errorText(probe.error)}). ` +
        'Point NATS_URL at a server started with -js, or unset it to use 127.0.0.1:4222 or a started nats-server.',
      { cause: probe.error },
    );
  }

  const defaultUrl = options.defaultUrl ?? DEFAULT_NATS_URL;
  const probe = await probeNats(defaultUrl);
  if (probe.state === 'jetstream') {
    log(`nats: ${defaultUrl} answers with JetStream; using it`);
    return attached(defaultUrl);
  }
  log(
    probe.state === 'no-jetstream'
      ? `nats: ${defaultUrl} answers but JetStream is disabled; starting a nats-server`
      : `nats: nothing answers on ${defaultUrl}; starting a nats-server`,
  );

  const binary = options.binary ?? findNatsServer(env);
  if (!binary) {
    throw new InfraUnavailableError(
      'nats',
      `No NATS server with JetStream answers on ${defaultUrl} and no nats-server binary was found ` +
        `(looked at NATS_SERVER_BIN, on PATH, /usr/sbin/nats-server and ${join(toolsBinDir(env), 'nats-server')}). ` +
        'Provide one: run `scripts/tools/install.sh nats-server` (needs Go >= 1.22), install nats-server with ' +
        'your package manager, or set NATS_URL to a server with JetStream enabled.',
    );
  }

  const ownsDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-nats-')));
  await mkdir(dataDir, { recursive: true });
  try {
    const { url, child } = await startNatsServer(binary, dataDir, options.startTimeoutMs ?? 10_000);
    log(`nats: started ${binary} (pid ${child.pid}) on ${url}, JetStream store ${dataDir}`);
    return {
      url,
      started: true,
      stop: async () => {
        await stopChild(child, 'SIGTERM', 5_000);
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function findNatsServer(env: NodeJS.ProcessEnv): string | undefined {
  const candidates = [env.NATS_SERVER_BIN, findOnPath('nats-server', env), '/usr/sbin/nats-server'];
  candidates.push(join(toolsBinDir(env), 'nats-server'));
  return candidates.find((candidate): candidate is string => !!candidate && isExecutable(candidate));
}

async function startNatsServer(binary: string, dataDir: string, timeoutMs: number) {
  // freePort() can lose a race with another process; a server that dies on "address in use" gets another port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const tail = new OutputTail(50);
    const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    readLines(child.stdout, (line) => tail.push(line));
    readLines(child.stderr, (line) => tail.push(line));
    try {
      await waitUntil(async () => (await probeNats(url, 1_000)).state === 'jetstream', {
        timeoutMs,
        abort: deathOf(child, binary),
        onTimeout: () => new Error(`${binary} did not answer on ${url} within ${timeoutMs} ms`),
      });
      return { url, child };
    } catch (error) {
      await stopChild(child, 'SIGKILL');
      const output = tail.snapshot();
      if (attempt < 3 && output.some((line) => /address already in use/i.test(line))) continue;
      throw new InfraUnavailableError(
        'nats',
        `could not start nats-server: ${errorText(error)}` + (output.length ? `\n${output.join('\n')}` : ''),
        { cause: error },
      );
    }
  }
}
