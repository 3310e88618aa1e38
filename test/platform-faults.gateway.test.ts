import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * The platforms misbehave (sandbox faults, docs/development.md "Platform faults in the sandbox"): what a REST and an
 * MCP caller get for each fault. Never a 500 of the gateway, never a wait past the request deadline; a platform's
 * own error comes back as the platform sent it (status, envelope, its rate-limit header); an oversized answer is
 * refused (502 platform_answer_too_large) without provider-proxy holding it in memory.
 */
const DEADLINE_MS = 1_500;
/** Slack for a busy 2-core machine: the answer must come within the deadline plus this. */
const SLACK_MS = 2_500;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const HUGE_BYTES = 96 * 1024 * 1024;

let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;
let mcpUrl: string;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    edges: 1,
    actors: 1,
    edgeEnv: { UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS) },
    proxyEnv: { UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS), UPSTREAM_MAX_ANSWER_BYTES: String(MAX_ANSWER_BYTES) },
  });
  edge = cluster.edges[0]!.url;
  mcpUrl = `${(await cluster.startMcp({ UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS) })).url}/mcp`;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1_000, rate_burst: 1_000, monthly_quota: 100_000 });
}, 180_000);

afterEach(async () => {
  await fetch(`${cluster.sandbox.url}/_sandbox/faults`, { method: 'DELETE' });
});

afterAll(async () => {
  if (cluster) await fetch(`${cluster.sandbox.url}/_sandbox/faults`, { method: 'DELETE' }).catch(() => undefined);
  await fixtures?.close();
  await cluster?.stop();
});

type Provider = 'video-ads' | 'search-ads' | 'video-shop' | 'marketplace';

/** Per provider: a read path through the gateway and the sandbox path prefix the fault is limited to. */
const READS: Record<Provider, { target: string; sandboxPrefix: string }> = {
  'video-ads': { target: '/v1/video-ads/v1.3/oauth2/advertiser/get/', sandboxPrefix: '/open_api/' },
  'search-ads': { target: '/v1/search-ads/api/v5/campaigns?limit=5', sandboxPrefix: '/search-ads/api/' },
  'video-shop': { target: '/v1/video-shop/authorization/202309/shops', sandboxPrefix: '/video-shop/' },
  marketplace: { target: '/v1/marketplace/api/v2/shop/get_shop_info', sandboxPrefix: '/marketplace/api/v2/shop/' },
};

const keys = new Map<Provider, { secret: string; accountId: string }>();

async function keyFor(provider: Provider): Promise<{ secret: string; accountId: string }> {
  const known = keys.get(provider);
  if (known) return known;
  const customer = await fixtures.customer();
  const connection =
    provider === 'video-ads'
      ? await fixtures.videoAdsConnection(customer.customer_id)
      : provider === 'search-ads'
        ? await fixtures.searchAdsConnection(customer.customer_id)
        : provider === 'video-shop'
          ? await fixtures.videoShopConnection(customer.customer_id)
          : await fixtures.marketplaceConnection(customer.customer_id, 'marketplace');
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: [provider],
    accountIds: [connection.accountId],
  });
  const key = { secret, accountId: connection.accountId };
  keys.set(provider, key);
  return key;
}

async function addFault(provider: Provider, body: Record<string, unknown>): Promise<{ id: string }> {
  const response = await fetch(`${cluster.sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path_prefix: READS[provider].sandboxPrefix, ...body }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}

async function faultHits(id: string): Promise<number> {
  const listing = (await (await fetch(`${cluster.sandbox.url}/_sandbox/faults`)).json()) as {
    faults: { id: string; hits: number }[];
  };
  return listing.faults.find((fault) => fault.id === id)?.hits ?? -1;
}

/** A REST read of the provider, timed. */
async function read(provider: Provider): Promise<{ response: RawResponse; elapsedMs: number }> {
  const { secret, accountId } = await keyFor(provider);
  const started = Date.now();
  const response = await rawRequest(edge, READS[provider].target, {
    headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
  });
  return { response, elapsedMs: Date.now() - started };
}

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect({
    status: response.status,
    contentType: response.headers['content-type'],
    code: response.json<{ code: string }>().code,
  }).toEqual({ status, contentType: 'application/problem+json', code });
}

/** The customer's quota_used, as /v1/me reports it. */
async function quotaUsed(provider: Provider): Promise<number> {
  const { secret } = await keyFor(provider);
  const response = await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } });
  return response.json<{ quota_used: number }>().quota_used;
}

async function proxyRssBytes(): Promise<number> {
  const text = await (await fetch(`${cluster.proxy.urls.http}/metrics`)).text();
  const line = /^gateway_process_resident_memory_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!line) throw new Error('provider-proxy /metrics has no gateway_process_resident_memory_bytes');
  return Number(line[1]);
}

describe.each(['video-ads', 'search-ads'] as const)('REST gateway - %s platform faults', (provider) => {
  it('latency below the deadline: the platform answer, late', async () => {
    await addFault(provider, { kind: 'latency', latency_ms: 400, count: 1 });
    const { response, elapsedMs } = await read(provider);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(elapsedMs).toBeGreaterThanOrEqual(390);
  });

  it.each([
    ['latency past the deadline', { kind: 'latency', latency_ms: 8_000 }],
    ['hang', { kind: 'hang' }],
  ])('%s: 504 platform_timeout within the deadline', async (_name, fault) => {
    await addFault(provider, fault);
    const { response, elapsedMs } = await read(provider);
    expectProblem(response, 504, 'platform_timeout');
    expect(elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(elapsedMs).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });

  it('status_500: the platform 500 and its plain body, as sent (not a gateway problem)', async () => {
    const fault = await addFault(provider, { kind: 'status_500' });
    const { response } = await read(provider);
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('Internal Server Error\n');
    expect(await faultHits(fault.id)).toBe(1);
  });

  it('malformed: the 200 and its broken body passed on unchanged', async () => {
    await addFault(provider, { kind: 'malformed' });
    const { response } = await read(provider);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(() => JSON.parse(response.body)).toThrow();
    expect(response.body).toContain('upstream error');
  });

  it.each([
    ['truncated', 'truncated'],
    ['reset', 'reset'],
  ])(
    '%s: 502 platform_connection_lost at once, and counted (the request reached the platform)',
    async (_name, kind) => {
      const before = await quotaUsed(provider);
      const fault = await addFault(provider, { kind });
      const { response, elapsedMs } = await read(provider);
      expectProblem(response, 502, 'platform_connection_lost');
      expect(elapsedMs).toBeLessThan(DEADLINE_MS + SLACK_MS);
      expect(await faultHits(fault.id)).toBe(1);
      expect(await quotaUsed(provider)).toBe(before + 1);
    },
  );

  it('huge: 502 platform_answer_too_large; provider-proxy does not hold the answer', async () => {
    const before = await proxyRssBytes();
    const fault = await addFault(provider, { kind: 'huge', size_bytes: HUGE_BYTES, count: 1 });
    const { response, elapsedMs } = await read(provider);
    expectProblem(response, 502, 'platform_answer_too_large');
    expect(response.json<{ detail: string }>().detail).toContain(String(MAX_ANSWER_BYTES));
    expect(elapsedMs).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect(await faultHits(fault.id)).toBe(1);
    const grown = (await proxyRssBytes()) - before;
    expect(grown).toBeLessThan(HUGE_BYTES / 3);
  });

  it('after the faults are cleared the same read answers normally again', async () => {
    await addFault(provider, { kind: 'reset', count: 1 });
    expectProblem((await read(provider)).response, 502, 'platform_connection_lost');
    expect((await read(provider)).response.status).toBe(200);
  });
});

describe('REST gateway - each platform rate-limit error passes through as the platform sent it', () => {
  it('video-ads: HTTP 200 with code 40100 in its envelope', async () => {
    await addFault('video-ads', { kind: 'rate_limit' });
    const { response } = await read('video-ads');
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ code: 40100, message: 'App reaches the QPS limit.', data: {} });
  });

  it('search-ads: HTTP 429, X-Rate-Limit and the v5 error envelope', async () => {
    await addFault('search-ads', { kind: 'rate_limit' });
    const { response } = await read('search-ads');
    expect(response.status).toBe(429);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-rate-limit']).toMatch(/^user-hour-lim:\d+;user-hour-rem:0;$/);
    expect(response.json()).toEqual({
      data: null,
      pagination: null,
      error: { errors: [expect.objectContaining({ messageCode: 'TOO_MANY_REQUESTS' })] },
    });
  });

  it('video-shop: HTTP 429 with code 36009002', async () => {
    await addFault('video-shop', { kind: 'rate_limit' });
    const { response } = await read('video-shop');
    expect(response.status).toBe(429);
    expect(response.json()).toMatchObject({ code: 36009002, message: 'Too many requests.', data: null });
  });

  it('marketplace: HTTP 200 with error_rate_limit', async () => {
    await addFault('marketplace', { kind: 'rate_limit' });
    const { response } = await read('marketplace');
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ error: 'error_rate_limit', message: 'Api access too frequent.' });
  });
});

describe('MCP call_endpoint - platform faults', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  async function callEndpoint(path: string): Promise<CallToolResult> {
    const { secret } = await keyFor('video-ads');
    const client = new Client({ name: 'platform-faults-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    clients.push(client);
    return (await client.callTool({
      name: 'call_endpoint',
      arguments: { provider: 'video-ads', path, params: {} },
    })) as CallToolResult;
  }

  const textOf = (result: CallToolResult): string =>
    result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

  it('huge: a platform_answer_too_large tool error, not a crash or a stuck call', async () => {
    await addFault('video-ads', { kind: 'huge', size_bytes: HUGE_BYTES, count: 1 });
    const started = Date.now();
    const result = await callEndpoint('/v1.3/oauth2/advertiser/get/');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^platform_answer_too_large:/);
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });

  it('malformed: a platform_error tool error that says the body is not JSON', async () => {
    await addFault('video-ads', { kind: 'malformed', count: 1 });
    const result = await callEndpoint('/v1.3/oauth2/advertiser/get/');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^platform_error:.*not JSON/);
  });

  it('hang: a platform_timeout tool error within the deadline', async () => {
    await addFault('video-ads', { kind: 'hang' });
    const started = Date.now();
    const result = await callEndpoint('/v1.3/oauth2/advertiser/get/');
    expect(textOf(result)).toMatch(/^platform_timeout:/);
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });
});
