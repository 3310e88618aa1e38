import { execFileSync } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  GatewayFixtures,
  isInProcessTable,
  parsePrometheusText,
  startGatewayCluster,
  waitUntil,
  type GatewayCluster,
  type RunningService,
} from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * edge-auth as several worker processes on one port (WORKERS, node:cluster): requests are served by every worker,
 * a scrape of /metrics counts every worker's answers, a worker that dies is replaced, and SIGTERM drains them all.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: RunningService;
const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('growth', { rate_limit_rps: 10_000, rate_burst: 10_000, monthly_quota: 1_000_000 });
  edge = await cluster.startEdge({ WORKERS: '2' });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

/** The executable a process runs, from its command line. */
function executableOf(pid: number): string | undefined {
  try {
    return basename(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!);
  } catch {
    return undefined;
  }
}

/**
 * The primary's worker processes: its children that run node. From source, tsx can start an esbuild service as a
 * child of the primary too, when a file is not in its cache yet (a fresh machine).
 */
function workerPids(primary: RunningService = edge): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(primary.process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => executableOf(pid) === 'node');
  } catch {
    return [];
  }
}

/** The workers that said they serve (edge-auth's `worker_serving` line, at LOG_LEVEL=info). */
function servingWorkers(primary: RunningService): number[] {
  const pids = new Set<number>();
  for (const line of primary.output()) {
    if (!line.includes('"worker_serving"')) continue;
    const pid = (JSON.parse(line) as { pid?: unknown }).pid;
    if (typeof pid === 'number') pids.add(pid);
  }
  return [...pids];
}

/** The pid a file holds; 0 while it is absent or not written yet. */
function pidIn(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** A connection that has had one answer and stays open; `closed` resolves when the server ends it. */
async function keptAliveConnection(baseUrl: string): Promise<{ closed: Promise<boolean> }> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('data', () => resolve());
    socket.once('error', reject);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  });
  return { closed };
}

async function answered(): Promise<number> {
  const samples = parsePrometheusText(await (await fetch(`${edge.url}/metrics`)).text());
  return samples
    .filter((sample) => sample.name === 'gateway_edge_responses_total')
    .reduce((sum, sample) => sum + sample.value, 0);
}

describe('edge-auth worker processes', () => {
  it('serves one port from two processes and counts every answer of both in one scrape', async () => {
    await waitUntil(async () => workerPids().length === 2, {
      timeoutMs: 20_000,
      onTimeout: () => new Error(`workers: ${workerPids().join(',')}`),
    });
    const customer = await fixtures.customer('growth');
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const { secret } = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
    const before = await answered();
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async () => {
        // A new connection per request, so the primary hands them to both workers in turn.
        const response = await rawRequest(edge.url, ADVERTISERS, {
          headers: { 'X-API-Key': secret, 'X-Account-Id': connection.accountId, Connection: 'close' },
        });
        return response.status;
      }),
    );
    expect(statuses).toEqual(Array(40).fill(200));
    expect((await answered()) - before).toBe(40);
  }, 60_000);

  it('serves, from another worker, the connections handed to a worker that died before reading them', async () => {
    const [victim, survivor] = workerPids();
    // A stopped worker gets its share of the connections and reads none of them: the window between a worker's
    // death and the primary noticing it, held open.
    process.kill(victim!, 'SIGSTOP');
    const answers = Array.from({ length: 6 }, () =>
      rawRequest(edge.url, '/healthz', { headers: { Connection: 'close' } }).then((response) => response.status),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(victim!, 'SIGKILL');
    expect(await Promise.all(answers)).toEqual(Array(6).fill(200));
    await waitUntil(async () => workerPids().length === 2 && !workerPids().includes(victim!), {
      timeoutMs: 20_000,
      onTimeout: () => new Error(`workers: ${workerPids().join(',')}`),
    });
    expect(workerPids()).toContain(survivor);
  }, 60_000);

  it('keeps answering while a worker that died is replaced', async () => {
    const [victim] = workerPids();
    process.kill(victim!, 'SIGKILL');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await rawRequest(edge.url, '/healthz', { headers: { Connection: 'close' } })).status);
    }
    expect(statuses).toEqual(Array(10).fill(200));
    await waitUntil(async () => workerPids().length === 2 && !workerPids().includes(victim!), {
      timeoutMs: 20_000,
      onTimeout: () => new Error(`workers: ${workerPids().join(',')}`),
    });
  }, 60_000);

  it('ends with a clear error when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const start = cluster.startEdge({ WORKERS: '2', PORT: String(port), HOST: '127.0.0.1' });
      await expect(start).rejects.toThrow(`could not listen on 127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  it('kills and replaces a worker that stops answering, and hands the new connections to the others meanwhile', async () => {
    const primary = await cluster.startEdge({ WORKERS: '2', WORKER_HANG_MS: '1500', LOG_LEVEL: 'info' });
    let stopped: number | undefined;
    try {
      // The primary watches a worker from its first answer, which comes once the worker serves: a worker stopped
      // before that (a slow start on a busy machine) would never be judged.
      await waitUntil(async () => servingWorkers(primary).length === 2 && workerPids(primary).length === 2, {
        timeoutMs: 20_000,
        onTimeout: () => new Error(`workers: ${workerPids(primary).join(',')}, serving: ${servingWorkers(primary)}`),
      });
      // Both answer the primary's checks (every 150 ms here) before one of them stops.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [victim, survivor] = workerPids(primary);
      process.kill(victim!, 'SIGSTOP');
      stopped = victim;
      const stoppedAt = Date.now();
      const statuses: number[] = [];
      while (Date.now() - stoppedAt < 2_500) {
        statuses.push((await rawRequest(primary.url, '/healthz', { headers: { Connection: 'close' } })).status);
      }
      expect(statuses.length).toBeGreaterThan(5);
      expect(statuses).toEqual(Array(statuses.length).fill(200));
      await waitUntil(async () => !isInProcessTable(victim!) && workerPids(primary).length === 2, {
        timeoutMs: 20_000,
        onTimeout: () => new Error(`workers: ${workerPids(primary).join(',')}`),
      });
      expect(workerPids(primary)).toContain(survivor);
      const log = primary.output().join('\n');
      expect(log).toContain('worker process is late to answer');
      expect(log).toContain('worker process answers nothing; ending it');
    } finally {
      // A stopped worker that outlived the test would outlive its primary too.
      if (stopped !== undefined && isInProcessTable(stopped)) process.kill(stopped, 'SIGKILL');
      await primary.stop();
    }
  }, 60_000);

  it('kills and replaces a worker that hangs before it serves', async () => {
    const markerDir = mkdtempSync(join(tmpdir(), 'edge-workers-'));
    const marker = join(markerDir, 'hung-worker.pid');
    // The first worker to start hangs (test/fixtures/hang-first-worker.cjs); the primary serves through the other.
    const primary = await cluster.startEdge({
      WORKERS: '2',
      WORKER_START_MS: '8000',
      LOG_LEVEL: 'info',
      NODE_OPTIONS: `--require ${join(__dirname, 'fixtures', 'hang-first-worker.cjs')}`,
      HANG_FIRST_WORKER_MARKER: marker,
    });
    let hung = 0;
    try {
      await waitUntil(async () => (hung = pidIn(marker)) > 0, {
        timeoutMs: 10_000,
        onTimeout: () => new Error(`no worker hung: workers ${workerPids(primary).join(',')}`),
      });
      expect(workerPids(primary)).toContain(hung);
      await waitUntil(async () => !isInProcessTable(hung) && servingWorkers(primary).length === 2, {
        timeoutMs: 30_000,
        onTimeout: () => new Error(`workers: ${workerPids(primary).join(',')}, serving: ${servingWorkers(primary)}`),
      });
      expect(servingWorkers(primary)).not.toContain(hung);
      await waitUntil(async () => workerPids(primary).length === 2, {
        timeoutMs: 10_000,
        onTimeout: () => new Error(`workers: ${workerPids(primary).join(',')}`),
      });
      expect(primary.output().join('\n')).toContain('worker process answers nothing; ending it');
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        statuses.push((await rawRequest(primary.url, '/healthz', { headers: { Connection: 'close' } })).status);
      }
      expect(statuses).toEqual(Array(10).fill(200));
    } finally {
      if (hung > 0 && isInProcessTable(hung)) process.kill(hung, 'SIGKILL');
      await primary.stop();
      rmSync(markerDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('drains every worker on SIGTERM, closing kept-alive connections once idle, and exits 0', async () => {
    const pids = workerPids();
    // An idle kept-alive connection holds a worker's drain until the worker closes it, which it can only do for
    // the connections its HTTP server tracks.
    const idle = await keptAliveConnection(edge.url);
    const startedAt = Date.now();
    const ended = await edge.stop('SIGTERM');
    expect(ended).toEqual({ code: 0, signal: null });
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(await idle.closed).toBe(true);
    for (const pid of pids) expect(isInProcessTable(pid)).toBe(false);
  }, 60_000);
});
