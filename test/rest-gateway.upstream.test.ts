import {
  closedPort,
  GatewayFixtures,
  startGatewayCluster,
  startService,
  waitUntil,
  type GatewayCluster,
} from '@gateway/testing';
import { createServer, type Server, type Socket } from 'node:net';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * When the platform cannot be reached, does not answer in time, or provider-proxy itself is down, the caller gets
 * a precise gateway error (never a 500, never a hang), and only requests that may have reached the platform count.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let blackHole: Server;
const heldSockets = new Set<Socket>();
const edges: Record<'timeout' | 'unreachable' | 'proxyDown', string> = { timeout: '', unreachable: '', proxyDown: '' };
const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  blackHole = createServer((socket) => heldSockets.add(socket)); // accepts, never answers
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  const blackHoleUrl = `http://127.0.0.1:${(blackHole.address() as { port: number }).port}`;
  const closedUrl = `http://127.0.0.1:${await closedPort()}`;

  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    edges: 0,
    actors: 1,
    proxyEnv: { VIDEO_ADS_BASE_URL: blackHoleUrl },
  });
  const proxyEnv = (baseUrl: string) => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    MONGODB_URI: mongoUri,
    CREDENTIALS_ENCRYPTION_KEYS: cluster.secrets.credentialsKeys,
    CREDENTIALS_ACTIVE_KEY_ID: cluster.secrets.credentialsActiveKeyId,
    VIDEO_ADS_BASE_URL: baseUrl,
    VIDEO_ADS_APP_ID: cluster.secrets.appId,
    VIDEO_ADS_APP_SECRET: cluster.secrets.appSecret,
    VIDEO_ADS_APP_QPS: '0',
    GRPC_PORT: '0',
    HTTP_PORT: '0',
  });
  const unreachableProxy = await startService('provider-proxy', proxyEnv(closedUrl), { listeners: ['grpc', 'http'] });
  afterAllStops.push(() => unreachableProxy.stop());

  edges.timeout = (await cluster.startEdge({ UPSTREAM_TIMEOUT_MS: '800' })).url;
  edges.unreachable = (
    await cluster.startEdge({ PROVIDER_PROXY_ADDRESS: new URL(unreachableProxy.urls.grpc!).host })
  ).url;
  edges.proxyDown = (await cluster.startEdge({ PROVIDER_PROXY_ADDRESS: `127.0.0.1:${await closedPort()}` })).url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
}, 120_000);

const afterAllStops: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const socket of heldSockets) socket.destroy();
  blackHole?.close();
  await fixtures?.close();
  for (const stop of afterAllStops) await stop();
  await cluster?.stop();
});

async function key(): Promise<string> {
  const customer = await fixtures.customer();
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  return (await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] })).secret;
}

async function quotaUsed(edge: string, secret: string): Promise<number> {
  return (await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).json<{ quota_used: number }>()
    .quota_used;
}

/** The refund is sent after the answer, without waiting: until the key's count has come back to `used`. */
async function untilQuotaUsed(edge: string, secret: string, used: number): Promise<void> {
  let last = Number.NaN;
  await waitUntil(async () => (last = await quotaUsed(edge, secret)) === used, {
    timeoutMs: 30_000,
    onTimeout: () => new Error(`quota_used stayed ${last}, expected ${used}`),
  });
}

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect({ status: response.status, code: response.json<{ code: string }>().code }).toEqual({ status, code });
}

describe('REST gateway - platform and proxy failures', () => {
  it('answers 504 platform_timeout when the platform does not answer in time, and counts the request', async () => {
    const secret = await key();
    // The actor loads the key first, so that the timed request is only the hot path and the upstream deadline.
    expect(await quotaUsed(edges.timeout, secret)).toBe(0);
    const started = Date.now();
    const response = await rawRequest(edges.timeout, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    expectProblem(response, 504, 'platform_timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await quotaUsed(edges.timeout, secret)).toBe(1);
  });

  it('answers 502 platform_unreachable when the platform refuses connections, and gives the unit back', async () => {
    const secret = await key();
    const response = await rawRequest(edges.unreachable, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    expectProblem(response, 502, 'platform_unreachable');
    expect(response.body).not.toContain(cluster.secrets.appSecret);
    await untilQuotaUsed(edges.unreachable, secret, 0);
  });

  it('answers 503 service_unavailable with Retry-After when provider-proxy is down, and gives the unit back', async () => {
    const secret = await key();
    const response = await rawRequest(edges.proxyDown, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    expectProblem(response, 503, 'service_unavailable');
    expect(response.headers['retry-after']).toBe('1');
    await untilQuotaUsed(edges.proxyDown, secret, 0);
  });
});
