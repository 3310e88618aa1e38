import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
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
function workerPids(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(edge.process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => executableOf(pid) === 'node');
  } catch {
    return [];
  }
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

  it('replaces a worker that dies, and keeps answering meanwhile', async () => {
    const [victim, survivor] = workerPids();
    process.kill(victim!, 'SIGKILL');
    // Once the primary has seen the death it hands new connections to the survivor only. It has when it reaped the
    // worker: node runs the exit handling (which takes the worker out of the round robin) right after reaping. A
    // zombie is not enough: workerPids already leaves it out (no command line), but the primary may not have seen
    // it yet, and a connection handed to a dead worker in that window is never answered.
    await waitUntil(async () => !isInProcessTable(victim!), {
      timeoutMs: 10_000,
      onTimeout: () => new Error(`worker ${victim} was not reaped by the primary`),
    });
    expect((await rawRequest(edge.url, '/healthz', { headers: { Connection: 'close' } })).status).toBe(200);
    await waitUntil(async () => workerPids().length === 2 && !workerPids().includes(victim!), {
      timeoutMs: 20_000,
      onTimeout: () => new Error(`workers: ${workerPids().join(',')}`),
    });
    expect(workerPids()).toContain(survivor);
  }, 60_000);

  it('drains every worker on SIGTERM and exits 0', async () => {
    const pids = workerPids();
    const ended = await edge.stop('SIGTERM');
    expect(ended).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(isInProcessTable(pid)).toBe(false);
  }, 60_000);
});
