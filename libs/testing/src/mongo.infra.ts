import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { deathOf, errorText, stopChild } from './child-process';
import { redactUri } from './connection-uri';
import { freePort } from './free-port';
import { InfraUnavailableError } from './infra.error';
import { OutputTail, readLines } from './output-tail';
import { installScript, isExecutable, repoRoot, toolsBinDir } from './repo-paths';
import { waitUntil } from './wait-until';

export interface EnsureMongoOptions {
  /** Where MONGODB_URI and GATEWAY_TOOLS_DIR are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** FerretDB's SQLite files and state; default a temp dir that stop() deletes. A given dir is kept. */
  dataDir?: string;
  /** FerretDB binary; default .tools/bin/ferretdb. */
  binary?: string;
  /** Build FerretDB with scripts/tools/install.sh when the binary is missing; default true. */
  install?: boolean;
  /** How long a started FerretDB may take to answer a ping; default 30 s (the build is not counted). */
  startTimeoutMs?: number;
  /** Progress messages (what was found, built, started). */
  log?: (message: string) => void;
  /**
   * FerretDB's PostgreSQL backend on this database (postgres://user@host:port/db) instead of SQLite files. FerretDB
   * 1.24's SQLite backend scans the whole collection on every update; on PostgreSQL an update by `_id` goes through
   * the index, as on MongoDB (docs/benchmarks.md, "FerretDB in the figures"). Each MongoDB database is a schema there.
   */
  postgresqlUrl?: string;
}

export interface MongoHandle {
  /** Server URI without a database name; pick one per test file with uniqueDatabaseUri(). */
  uri: string;
  /** True when this call started FerretDB; only then does stop() end it. */
  started: boolean;
  /** The backend of a FerretDB this call started. */
  backend?: 'sqlite' | 'postgresql';
  stop(): Promise<void>;
}

/**
 * FerretDB on the PostgreSQL at `postgresqlUrl` when one listens there and FerretDB can use it, else on SQLite files,
 * saying why in the log; MONGODB_URI, when set, wins as in ensureMongo. On SQLite every update reads its collection
 * (docs/benchmarks.md, "FerretDB in the figures"), so the benches and the load test's stack prefer PostgreSQL.
 */
export async function ensureMongoPreferringPostgresql(
  options: EnsureMongoOptions & { postgresqlUrl: string },
): Promise<MongoHandle> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const onSqlite = { ...options, postgresqlUrl: undefined };
  if (env.MONGODB_URI) return ensureMongo(onSqlite);
  const { hostname, port } = new URL(options.postgresqlUrl);
  if (!(await listens(hostname, Number(port || 5432)))) {
    log(`mongodb: no PostgreSQL answers on ${hostname}:${port || 5432}; FerretDB on SQLite instead`);
    return ensureMongo(onSqlite);
  }
  return ensureMongo(options).catch((error: unknown) => {
    log(`mongodb: ${errorText(error)}; FerretDB on SQLite instead`);
    return ensureMongo(onSqlite);
  });
}

function listens(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1_000 });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** One `ping` through the official driver (mongoose's copy), the same client the services use. */
export async function pingMongo(uri: string, timeoutMs = 2_000): Promise<{ ok: true } | { ok: false; error: unknown }> {
  const client = new mongoose.mongo.MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
  });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * A MongoDB-wire server: MONGODB_URI if set, else FerretDB 1.24 with its SQLite backend on a free loopback
 * port, built first with scripts/tools/install.sh when its binary is missing.
 */
export async function ensureMongo(options: EnsureMongoOptions = {}): Promise<MongoHandle> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);

  if (env.MONGODB_URI) {
    const ping = await pingMongo(env.MONGODB_URI, 5_000);
    if (!ping.ok) {
      throw new InfraUnavailableError(
        'mongodb',
        `MONGODB_URI=${redactUri(env.MONGODB_URI)} does not answer a ping (${errorText(ping.error)}). ` +
          'Start that server, or unset MONGODB_URI to use a FerretDB started from .tools/bin.',
        { cause: ping.error },
      );
    }
    log(`mongodb: using MONGODB_URI ${redactUri(env.MONGODB_URI)}`);
    return { uri: env.MONGODB_URI, started: false, stop: async () => undefined };
  }

  const binary = options.binary ?? join(toolsBinDir(env), 'ferretdb');
  if (!isExecutable(binary)) {
    if (options.install === false) {
      throw new InfraUnavailableError(
        'mongodb',
        `MONGODB_URI is not set and there is no FerretDB binary at ${binary}. Run scripts/tools/install.sh ` +
          '(builds FerretDB v1.24.2; needs Go >= 1.22) or set MONGODB_URI to a MongoDB-compatible server.',
      );
    }
    log(`mongodb: MONGODB_URI is not set and ${binary} is missing; building FerretDB with scripts/tools/install.sh`);
    await installFerretdb(env, log);
    if (!isExecutable(binary)) {
      throw new InfraUnavailableError(
        'mongodb',
        `scripts/tools/install.sh finished but ${binary} is still missing; set MONGODB_URI to a ` +
          'MongoDB-compatible server, or pass the FerretDB binary explicitly.',
      );
    }
  }

  const ownsDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'gateway-ferretdb-')));
  await mkdir(dataDir, { recursive: true });
  const postgresqlUrl = options.postgresqlUrl;
  const backendArgs = postgresqlUrl
    ? ['--handler=postgresql', `--postgresql-url=${postgresqlUrl}`]
    : ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`];
  const unusablePostgresql = (url: string, error: unknown) =>
    new InfraUnavailableError(
      'mongodb',
      `FerretDB could not use PostgreSQL at ${redactUri(url)}: ${errorText(error)}`,
      {
        cause: error,
      },
    );
  try {
    const { uri, child } = await startFerretdb(binary, dataDir, backendArgs, options.startTimeoutMs ?? 30_000).catch(
      (error: unknown) => {
        throw postgresqlUrl ? unusablePostgresql(postgresqlUrl, error) : error;
      },
    );
    if (postgresqlUrl) {
      // A ping does not reach PostgreSQL; listing the databases does.
      const reached = await listDatabases(uri);
      if (!reached.ok) {
        await stopChild(child, 'SIGTERM', 10_000);
        throw unusablePostgresql(postgresqlUrl, reached.error);
      }
      log(`mongodb: started FerretDB (pid ${child.pid}) on ${uri}, PostgreSQL backend ${redactUri(postgresqlUrl)}`);
    } else {
      log(`mongodb: started FerretDB (pid ${child.pid}) on ${uri}, SQLite files in ${dataDir}`);
    }
    return {
      uri,
      started: true,
      backend: postgresqlUrl ? 'postgresql' : 'sqlite',
      stop: async () => {
        await stopChild(child, 'SIGTERM', 10_000);
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function installFerretdb(env: NodeJS.ProcessEnv, log: (message: string) => void): Promise<void> {
  const tail = new OutputTail(30);
  const child = spawn('bash', [installScript(), 'ferretdb'], {
    cwd: repoRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onLine = (line: string) => {
    tail.push(line);
    log(line);
  };
  readLines(child.stdout, onLine);
  readLines(child.stderr, onLine);
  const ended = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  if (ended.code === 0) return;
  throw new InfraUnavailableError(
    'mongodb',
    'MONGODB_URI is not set and FerretDB could not be built by scripts/tools/install.sh ' +
      `(${ended.error ? ended.error.message : `exit code ${ended.code}`}):\n${tail.snapshot().join('\n')}\n` +
      'Set MONGODB_URI to a MongoDB-compatible server, or fix the build (needs Go >= 1.22) and run ' +
      'scripts/tools/install.sh.',
    { cause: ended.error },
  );
}

async function listDatabases(uri: string): Promise<{ ok: true } | { ok: false; error: unknown }> {
  const client = new mongoose.mongo.MongoClient(uri, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  try {
    await client.connect();
    await client.db('admin').command({ listDatabases: 1, nameOnly: true });
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function startFerretdb(binary: string, dataDir: string, backendArgs: string[], timeoutMs: number) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const uri = `mongodb://127.0.0.1:${port}/`;
    const tail = new OutputTail(50);
    const child = spawn(
      binary,
      [
        ...backendArgs,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        // The default debug port 8088 is often taken and FerretDB refuses to start then; nobody reads it here.
        '--debug-addr=127.0.0.1:0',
        // Without this FerretDB 1.x reports to the internet at start.
        '--telemetry=disable',
        '--log-level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    readLines(child.stdout, (line) => tail.push(line));
    readLines(child.stderr, (line) => tail.push(line));
    try {
      await waitUntil(async () => (await pingMongo(uri, 1_000)).ok, {
        timeoutMs,
        intervalMs: 200,
        abort: deathOf(child, binary),
        onTimeout: () => new Error(`FerretDB did not answer a ping on ${uri} within ${timeoutMs} ms`),
      });
      return { uri, child };
    } catch (error) {
      await stopChild(child, 'SIGKILL');
      const output = tail.snapshot();
      if (attempt < 3 && output.some((line) => /address already in use/i.test(line))) continue;
      throw new InfraUnavailableError(
        'mongodb',
        `could not start FerretDB: ${errorText(error)}` + (output.length ? `\n${output.join('\n')}` : ''),
        { cause: error },
      );
    }
  }
}
