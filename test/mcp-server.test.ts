import { GatewayFixtures, startGatewayCluster, waitUntil, type GatewayCluster } from '@gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startFakeLlm, type FakeLlm } from '../services/mcp-server/src/suggest/fake-llm.fixture';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * The MCP endpoint end to end (spec 4.3, 5.3, 7, 8): the SDK's own client over Streamable HTTP against
 * mcp-server processes, with edge-auth, quota-actor, provider-proxy and the platform sandbox as real processes,
 * and an OpenAI-compatible fake on loopback standing in for the LLM (as the sandbox stands in for the platform).
 * mcpAi has the LLM configured; mcpPlain has none.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let llm: FakeLlm;
let rest: string;
let mcpAi: string;
let mcpPlain: string;

const REPORT = '/v1.3/report/integrated/get/';
const ADVERTISERS = '/v1.3/oauth2/advertiser/get/';
const AUTH_SERVER = 'https://auth.example.test';

const AI_REPORT = {
  provider: 'video-ads',
  path: REPORT,
  params: {
    report_type: 'BASIC',
    data_level: 'AUCTION_CAMPAIGN',
    dimensions: ['campaign_id', 'stat_time_day'],
    metrics: ['spend', 'clicks'],
    start_date: '2026-10-01',
    end_date: '2026-10-07',
  },
  reason: 'daily spend and clicks per campaign',
};

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  llm = await startFakeLlm((question) => {
    if (question.includes('slowly')) return { content: JSON.stringify(AI_REPORT), delayMs: 5_000 };
    if (question.includes('garbled')) return { content: 'Sure! Use the report endpoint.' };
    if (question.includes('offlist'))
      return { content: JSON.stringify({ ...AI_REPORT, path: '/v1.3/campaign/create/' }) };
    if (question.includes('badparams')) {
      return { content: JSON.stringify({ ...AI_REPORT, params: { ...AI_REPORT.params, data_level: 'WEEKLY' } }) };
    }
    return { content: JSON.stringify(AI_REPORT) };
  });
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  rest = cluster.edges[0]!.url;
  const [ai, plain] = await Promise.all([
    cluster.startMcp({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_API_KEY: 'sk-fake-llm-key',
      LLM_TIMEOUT_MS: '1000',
      AUTHORIZATION_SERVER_URL: AUTH_SERVER,
    }),
    cluster.startMcp({ AUTHORIZATION_SERVER_URL: AUTH_SERVER }),
  ]);
  mcpAi = `${ai.url}/mcp`;
  mcpPlain = `${plain.url}/mcp`;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  // trial: generous rate; growth (tier normalised): a tiny block quota and one AI suggestion; business (tier
  // data_assistant): a tiny rate bucket.
  await fixtures.setPlan('trial', {
    rate_limit_rps: 1000,
    rate_burst: 1000,
    monthly_quota: 100_000,
    suggestion_allowance: 100,
  });
  await fixtures.setPlan('growth', {
    rate_limit_rps: 1000,
    rate_burst: 1000,
    monthly_quota: 3,
    overage_mode: 'block',
    suggestion_allowance: 1,
  });
  await fixtures.setPlan('business', {
    rate_limit_rps: 1,
    rate_burst: 3,
    monthly_quota: 100_000,
    overage_mode: 'block',
  });
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
  await llm?.close();
});

async function keyWithOneConnection(plan: 'trial' | 'growth' | 'business' = 'trial') {
  const customer = await fixtures.customer(plan);
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const { secret, key } = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
  return { customer, connection, secret, key };
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

/** call_endpoint arguments of a video-ads report of 1,000 rows, far over 100,000 characters. */
function thousandRowReport(advertiserId: string) {
  return {
    provider: 'video-ads',
    path: REPORT,
    params: {
      advertiser_id: advertiserId,
      report_type: 'BASIC',
      data_level: 'AUCTION_AD',
      dimensions: ['ad_id', 'stat_time_day'],
      metrics: ['spend', 'impressions', 'clicks'],
      start_date: '2026-10-01',
      end_date: '2026-10-30',
      page_size: 1000,
    },
  };
}

async function connect(url: string, secret: string, fetchFn?: typeof fetch): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    ...(fetchFn ? { fetch: fetchFn } : {}),
  });
  const client = new Client({ name: 'mcp-server-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

function expectToolError(result: CallToolResult, code: string): string {
  expect({ isError: result.isError, code: /^([a-z_]+):/.exec(textOf(result))?.[1] }).toEqual({ isError: true, code });
  return textOf(result);
}

async function quotaUsed(secret: string): Promise<number> {
  const me = await rawRequest(rest, '/v1/me', { headers: { 'X-API-Key': secret } });
  return me.json<{ quota_used: number }>().quota_used;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const target = new URL(url);
  return rawRequest(target.origin, target.pathname, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

describe('MCP - transport and tools/list (spec 4.3)', () => {
  it('serves the five basic-tier tools, read-only, with schemas, through the SDK client', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    expect(client.getServerVersion()?.name).toBe('data-gateway');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'list_endpoints',
      'describe_endpoint',
      'find_endpoint',
      'call_endpoint',
      'check_quota',
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.outputSchema).toBeDefined();
    }
  });

  it('answers JSON or SSE as the Accept header prefers, and 405 to GET and DELETE (stateless)', async () => {
    const { secret } = await keyWithOneConnection();
    const auth = { Authorization: `Bearer ${secret}` };
    const json = await post(mcpAi, TOOLS_LIST, { ...auth, Accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['mcp-session-id']).toBeUndefined();
    expect(json.json<{ result: { tools: unknown[] } }>().result.tools).toHaveLength(5);
    const sse = await post(mcpAi, TOOLS_LIST, { ...auth, Accept: 'text/event-stream' });
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = sse.body.split('\n').find((line) => line.startsWith('data: {'));
    expect(JSON.parse(data!.slice(6))).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    expect((await post(mcpAi, TOOLS_LIST, { ...auth, Accept: 'text/html' })).status).toBe(406);
    const target = new URL(mcpAi);
    for (const method of ['GET', 'DELETE']) {
      const refused = await rawRequest(target.origin, target.pathname, { method, headers: auth });
      expect(refused.status).toBe(405);
      expect(refused.headers['allow']).toBe('POST');
    }
  });

  it('works with an SDK client that prefers SSE', async () => {
    const { secret } = await keyWithOneConnection();
    const preferSse: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (init?.method === 'POST') headers.set('accept', 'application/json;q=0.5, text/event-stream');
      return fetch(input, { ...init, headers });
    };
    const client = await connect(mcpAi, secret, preferSse);
    const result = await call(client, 'check_quota');
    expect(result.structuredContent).toMatchObject({ monthly_quota: 100_000 });
  });
});

describe('MCP - authentication (spec 4.3, 5.3) and DNS-rebinding protection', () => {
  it('answers a request without a token with 401 and WWW-Authenticate naming the metadata and scopes', async () => {
    const response = await post(mcpAi, TOOLS_LIST);
    expect(response.status).toBe(401);
    const origin = new URL(mcpAi).origin;
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="data:read"`,
    );
    expect(response.json()).toMatchObject({ code: 'missing_token', status: 401 });
  });

  it('serves the protected-resource metadata at both well-known paths, naming the authorization server', async () => {
    const origin = new URL(mcpAi).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await rawRequest(origin, path);
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({
        resource: mcpAi,
        authorization_servers: [AUTH_SERVER],
        scopes_supported: ['data:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'Data gateway MCP endpoint',
      });
    }
  });

  it('refuses unknown keys and tokens that are not API keys with 401 invalid_token', async () => {
    const unknown = await post(mcpAi, TOOLS_LIST, { Authorization: `Bearer dg_live_${'x'.repeat(40)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.json()).toMatchObject({ code: 'invalid_api_key' });
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    const jwt = await post(mcpAi, TOOLS_LIST, { Authorization: 'Bearer eyJhbGciOi.eyJzdWIi.c2ln' });
    expect(jwt.status).toBe(401);
    expect(jwt.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('refuses the next request of a revoked key (spec 3: immediate)', async () => {
    const { secret, key } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    expect((await call(client, 'check_quota')).isError).toBeFalsy();
    await fixtures.lifecycle.revoke(key.key_id);
    await expect(client.listTools()).rejects.toMatchObject({ code: 401 });
    const raw = await post(mcpPlain, TOOLS_LIST, { Authorization: `Bearer ${secret}` });
    expect(raw.status).toBe(401);
    expect(raw.json()).toMatchObject({ code: 'key_revoked' });
    expect(raw.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('refuses a caller outside the key IP allowlist with 403 ip_not_allowed', async () => {
    const customer = await fixtures.customer('trial');
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      accountIds: [connection.accountId],
      ipAllowlist: ['203.0.113.0/24'],
    });
    const response = await post(mcpAi, TOOLS_LIST, { Authorization: `Bearer ${secret}` });
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ code: 'ip_not_allowed' });
  });

  it('rejects a foreign Host or Origin with 403 before authenticating, and accepts its own', async () => {
    const { secret } = await keyWithOneConnection();
    const auth = { Authorization: `Bearer ${secret}` };
    const evilHost = await post(mcpAi, TOOLS_LIST, { ...auth, Host: 'evil.example.com' });
    expect(evilHost.status).toBe(403);
    const evilOrigin = await post(mcpAi, TOOLS_LIST, { ...auth, Origin: 'http://evil.example.com' });
    expect(evilOrigin.status).toBe(403);
    expect((await post(mcpAi, TOOLS_LIST, { ...auth, Origin: 'null' })).status).toBe(403);
    const target = new URL(mcpAi);
    const metadata = await rawRequest(target.origin, '/.well-known/oauth-protected-resource', {
      headers: { Host: 'evil.example.com' },
    });
    expect(metadata.status).toBe(403);
    // The metadata is public and CORS-open for browser-based clients: any Origin may read it.
    const fromBrowser = await rawRequest(target.origin, '/.well-known/oauth-protected-resource/mcp', {
      headers: { Origin: 'https://assistant.example.org' },
    });
    expect(fromBrowser.status).toBe(200);
    expect(fromBrowser.headers['access-control-allow-origin']).toBe('*');
    const own = await post(mcpAi, TOOLS_LIST, { ...auth, Host: `localhost:${target.port}`, Origin: target.origin });
    expect(own.status).toBe(200);
  });
});

describe('MCP - list_endpoints, describe_endpoint, check_quota (free tools)', () => {
  it('lists the plan endpoints, the key connections and the remaining quota', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'list_endpoints');
    const body = result.structuredContent as {
      endpoints: { provider: string; path: string }[];
      connections: unknown[];
      quota: { monthly_quota: number; remaining: number };
    };
    expect(body.endpoints.map((endpoint) => endpoint.path)).toEqual([
      ADVERTISERS,
      '/v1.3/advertiser/info/',
      REPORT,
      '/v1.3/campaign/get/',
      '/v1.3/adgroup/get/',
      '/v1.3/ad/get/',
      '/v1.3/gmv_max/store/list/',
      '/v1.3/gmv_max/report/get/',
    ]);
    expect(body.connections).toEqual([{ provider: 'video-ads', account_id: connection.accountId }]);
    expect(body.quota).toMatchObject({ monthly_quota: 100_000, remaining: 100_000 });
  });

  it('describes the report parameters with JSON-string arrays, limits and an example call', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const body = (await call(client, 'describe_endpoint', { provider: 'video-ads', path: REPORT }))
      .structuredContent as { params: { name: string; maximum?: number; format?: string }[]; example_call: unknown };
    expect(body.params.find((param) => param.name === 'page_size')).toMatchObject({ maximum: 1000 });
    expect(body.params.find((param) => param.name === 'metrics')?.format).toMatch(/JSON array/);
    expect(body.example_call).toMatchObject({
      tool: 'call_endpoint',
      arguments: { provider: 'video-ads', path: REPORT },
    });
  });

  it('reports the monthly quota, its reset and the suggestion allowance', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpPlain, secret);
    const now = new Date();
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({
      monthly_quota: 100_000,
      quota_used: 0,
      remaining: 100_000,
      overage_mode: 'block',
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      suggestions: { allowance: 100, used: 0, remaining: 100 },
    });
  });
});

describe('MCP - find_endpoint (spec 4.3 rule 5)', () => {
  it('uses the AI when configured, validates its proposal and counts it against the allowance', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const before = llm.requests.length;
    const result = await call(client, 'find_endpoint', {
      question: 'daily spend and clicks per campaign in early October',
    });
    expect(result.structuredContent).toMatchObject({
      source: 'ai',
      suggestion: { path: REPORT, params: AI_REPORT.params, missing_params: [{ name: 'advertiser_id' }] },
      suggestions_left: 99,
    });
    expect(llm.requests.length).toBe(before + 1);
    expect(llm.requests.at(-1)).toMatchObject({
      authorization: 'Bearer sk-fake-llm-key',
      body: { model: 'fake-model' },
    });
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({ suggestions: { used: 1 } });
  });

  it.each([
    ['answers slowly', 'ai_timeout'],
    ['gives a garbled answer', 'ai_malformed'],
    ['proposes an offlist path', 'ai_invalid'],
    ['proposes badparams', 'ai_invalid'],
  ])('falls back to keyword matching when the AI %s, and gives the suggestion back', async (what, reason) => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'find_endpoint', { question: `spend per campaign last 7 days (${what})` });
    expect(result.structuredContent).toMatchObject({
      source: 'keyword',
      fallback_reason: reason,
      suggestion: { path: REPORT, params: { data_level: 'AUCTION_CAMPAIGN', dimensions: ['campaign_id'] } },
      suggestions_left: 100,
    });
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({
      suggestions: { allowance: 100, used: 0, remaining: 100 },
    });
  });

  it("draws suggestions from the customer's allowance, whichever of its keys asks", async () => {
    const { secret, customer, connection } = await keyWithOneConnection('growth');
    const other = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
    const first = await connect(mcpAi, secret);
    expect(
      (await call(first, 'find_endpoint', { question: 'campaign spend last week' })).structuredContent,
    ).toMatchObject({
      source: 'ai',
    });
    const second = await connect(mcpAi, other.secret);
    expect(
      (await call(second, 'find_endpoint', { question: 'campaign spend last week' })).structuredContent,
    ).toMatchObject({
      source: 'keyword',
      fallback_reason: 'allowance_used_up',
    });
    expect((await call(second, 'check_quota')).structuredContent).toMatchObject({
      suggestions: { used: 1, remaining: 0 },
    });
  });

  it('falls back to keyword matching once the monthly allowance is used up', async () => {
    const { secret } = await keyWithOneConnection('growth');
    const client = await connect(mcpAi, secret);
    const question = { question: 'campaign spend last week' };
    expect((await call(client, 'find_endpoint', question)).structuredContent).toMatchObject({ source: 'ai' });
    expect((await call(client, 'find_endpoint', question)).structuredContent).toMatchObject({
      source: 'keyword',
      fallback_reason: 'allowance_used_up',
      suggestions_left: 0,
    });
  });

  it('answers by keyword ranking without an LLM: dimensions, metrics and the date range', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpPlain, secret);
    const result = await call(client, 'find_endpoint', {
      question: 'Impressions, clicks and CTR by ad group, day by day, from 2026-10-01 to 2026-10-14',
    });
    expect(result.structuredContent).toMatchObject({
      source: 'keyword',
      fallback_reason: 'ai_not_configured',
      suggestion: {
        path: REPORT,
        params: {
          report_type: 'BASIC',
          data_level: 'AUCTION_ADGROUP',
          dimensions: ['adgroup_id', 'stat_time_day'],
          metrics: ['impressions', 'clicks', 'ctr'],
          start_date: '2026-10-01',
          end_date: '2026-10-14',
        },
      },
    });
    const accounts = await call(client, 'find_endpoint', { question: 'which ad accounts can I access?' });
    expect(accounts.structuredContent).toMatchObject({ suggestion: { path: ADVERTISERS } });
  });
});

describe('MCP - call_endpoint (spec 4.3, 7, 8)', () => {
  it('returns the platform answer as fenced data and counts one request, in the same quota as REST', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'call_endpoint', { provider: 'video-ads', path: ADVERTISERS });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { data: { code: number; data: { list: { advertiser_id: string }[] } } };
    expect(body).toMatchObject({
      provider: 'video-ads',
      path: ADVERTISERS,
      account_id: connection.accountId,
      truncated: false,
    });
    expect(body.data.code).toBe(0);
    expect(body.data.data.list.map((entry) => entry.advertiser_id).sort()).toEqual(
      [...connection.advertiserIds].sort(),
    );
    expect(textOf(result)).toMatch(/-----BEGIN UNTRUSTED PLATFORM DATA \S+-----/);
    expect(await quotaUsed(secret)).toBe(1);

    const restCall = await rawRequest(rest, `/v1/video-ads${ADVERTISERS}`, { headers: { 'X-API-Key': secret } });
    expect(restCall.status).toBe(200);
    expect(await quotaUsed(secret)).toBe(2);
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({ quota_used: 2, remaining: 99_998 });
    // free tools do not count
    await call(client, 'list_endpoints');
    await call(client, 'describe_endpoint', { provider: 'video-ads', path: ADVERTISERS });
    await call(client, 'find_endpoint', { question: 'spend by campaign' });
    await client.listTools();
    expect(await quotaUsed(secret)).toBe(2);
  });

  it('accepts array parameters as JSON values or JSON strings', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const client = await connect(mcpPlain, secret);
    const params = { advertiser_ids: [connection.advertiserIds[0]] };
    const asArray = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: '/v1.3/advertiser/info/',
      params,
    });
    const asString = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: '/v1.3/advertiser/info/',
      params: { advertiser_ids: JSON.stringify(params.advertiser_ids) },
    });
    for (const result of [asArray, asString]) {
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: { code: number } }).data.code).toBe(0);
    }
  });

  it('blocks a path outside the allowlist before anything leaves the service (rule 3)', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const { lastSeq } = await fixtures.sandboxRequests();
    for (const path of [
      '/v1.3/campaign/create/',
      '/v1.3/ad/delete/',
      '/v1.3/campaign/get/../create/',
      '/V1.3/campaign/get/',
    ]) {
      expectToolError(await call(client, 'call_endpoint', { provider: 'video-ads', path }), 'path_not_allowed');
    }
    expect((await fixtures.sandboxRequests(lastSeq)).requests).toEqual([]);
    expect(await quotaUsed(secret)).toBe(0);
  });

  it('refuses a provider outside the key providers with provider_not_in_plan', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'call_endpoint', { provider: 'search-ads', path: '/v5/campaigns' });
    expectToolError(result, 'provider_not_in_plan');
  });

  it('asks for account_id when the key has several connections, listing them, and refuses foreign ones', async () => {
    const customer = await fixtures.customer('trial');
    const first = await fixtures.videoAdsConnection(customer.customer_id, 0);
    const second = await fixtures.videoAdsConnection(customer.customer_id, 1);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      accountIds: [first.accountId, second.accountId],
    });
    const client = await connect(mcpAi, secret);
    const missing = expectToolError(
      await call(client, 'call_endpoint', { provider: 'video-ads', path: ADVERTISERS }),
      'missing_account_id',
    );
    expect(missing).toContain(first.accountId);
    expect(missing).toContain(second.accountId);
    const foreign = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: ADVERTISERS,
      account_id: 'acct_notminenotminenotm',
    });
    expectToolError(foreign, 'account_not_allowed');
    const chosen = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: ADVERTISERS,
      account_id: second.accountId,
    });
    expect(chosen.structuredContent).toMatchObject({ account_id: second.accountId, data: { code: 0 } });
    expect(await quotaUsed(secret)).toBe(1);
  });

  it('refuses parameters the catalogue refuses without counting them', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: REPORT,
      params: { advertiser_id: connection.advertiserIds[0], report_type: 'WEEKLY', dimensions: 'campaign_id' },
    });
    const text = expectToolError(result, 'invalid_params');
    expect(text).toMatch(/report_type must be one of/);
    expect(text).toMatch(/dimensions must be a JSON array/);
    expect(await quotaUsed(secret)).toBe(0);
  });

  it('returns platform errors as a tool error with the platform envelope fenced, and counts them (spec 7)', async () => {
    const { secret } = await keyWithOneConnection();
    const client = await connect(mcpAi, secret);
    const result = await call(client, 'call_endpoint', {
      provider: 'video-ads',
      path: '/v1.3/campaign/get/',
      params: { advertiser_id: '7000000000000000001' },
    });
    const text = expectToolError(result, 'platform_error');
    expect(text).toMatch(/code 40001/);
    expect(text).toMatch(/-----BEGIN UNTRUSTED PLATFORM DATA \S+-----\n\{"code":40001/);
    expect(await quotaUsed(secret)).toBe(1);
  });

  it('refuses with quota_exceeded once the block quota is used, like REST', async () => {
    const { secret } = await keyWithOneConnection('growth');
    const client = await connect(mcpAi, secret);
    for (let i = 0; i < 2; i++) {
      expect((await call(client, 'call_endpoint', { provider: 'video-ads', path: ADVERTISERS })).isError).toBeFalsy();
    }
    expect((await rawRequest(rest, `/v1/video-ads${ADVERTISERS}`, { headers: { 'X-API-Key': secret } })).status).toBe(
      200,
    );
    const refused = await call(client, 'call_endpoint', { provider: 'video-ads', path: ADVERTISERS });
    expect(expectToolError(refused, 'quota_exceeded')).toMatch(/used up \(3 of 3\)/);
    expect((await rawRequest(rest, `/v1/video-ads${ADVERTISERS}`, { headers: { 'X-API-Key': secret } })).status).toBe(
      429,
    );
    expect(await quotaUsed(secret)).toBe(3);
  });

  it('answers a rate-limited tool call with a rate_limited tool error, and other requests with 429', async () => {
    const { secret } = await keyWithOneConnection('business');
    const client = await connect(mcpAi, secret);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call(client, 'call_endpoint', { provider: 'video-ads', path: ADVERTISERS })),
    );
    const limited = results.filter((result) => result.isError);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(expectToolError(limited[0]!, 'rate_limited')).toMatch(/wait \d+ s/);
    // Refused calls cost nothing: only the admitted ones count (their forward decision was asked ahead). /v1/me
    // needs a rate unit of its own: it answers once the bucket has one again.
    let me: RawResponse | undefined;
    await waitUntil(
      async () => (me = await rawRequest(rest, '/v1/me', { headers: { 'X-API-Key': secret } })).status === 200,
      { timeoutMs: 30_000, onTimeout: () => new Error(`/v1/me still answers ${me?.status}`) },
    );
    expect(me!.json<{ quota_used: number }>().quota_used).toBe(results.length - limited.length);
    let response: RawResponse | undefined;
    for (let i = 0; i < 10 && response?.status !== 429; i++) {
      response = await post(mcpAi, TOOLS_LIST, { Authorization: `Bearer ${secret}` });
    }
    expect(response!.status).toBe(429);
    expect(response!.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(response!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it.each(['stream', 'unary'])(
    'reads at most MAX_ANSWER_BYTES of a platform answer and closes the part read after its last whole record (%s transport)',
    async (transport) => {
      const small = await cluster.startMcp({
        AUTHORIZATION_SERVER_URL: AUTH_SERVER,
        MAX_ANSWER_BYTES: '65536',
        PROVIDER_PROXY_TRANSPORT: transport,
      });
      try {
        const { secret, connection } = await keyWithOneConnection();
        const client = await connect(`${small.url}/mcp`, secret);
        const result = await call(client, 'call_endpoint', thousandRowReport(connection.advertiserIds[0]!));
        expect(result.isError).toBeFalsy();
        const body = result.structuredContent as {
          truncated: boolean;
          read_limit_bytes: number;
          original_chars: number;
          advice: string;
          data: { code: number; data: { list: { dimensions: Record<string, string> }[] } };
        };
        expect(body).toMatchObject({ truncated: true, read_limit_bytes: 65_536, data: { code: 0 } });
        expect(body.original_chars).toBeLessThan(65_536);
        // Some hundreds of whole rows of the 1,000 the platform sent: the rest never reached this mcp-server.
        expect(body.data.data.list.length).toBeGreaterThan(50);
        expect(body.data.data.list.length).toBeLessThan(1000);
        for (const row of body.data.data.list)
          expect(Object.keys(row.dimensions).sort()).toEqual(['ad_id', 'stat_time_day']);
        expect(body.advice).toMatch(/longer than 65536 bytes/);
        await client.close();
      } finally {
        await small.stop();
      }
    },
  );

  it('cuts a large report at a record boundary, keeps it valid JSON, marks it truncated and fences it (rules 4, 6)', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const client = await connect(mcpPlain, secret);
    const args = thousandRowReport(connection.advertiserIds[0]!);
    const result = await call(client, 'call_endpoint', args);
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as {
      truncated: boolean;
      original_chars: number;
      returned_chars: number;
      records_returned: number;
      records_in_answer: number;
      advice: string;
      data: {
        code: number;
        data: { list: { dimensions: Record<string, string> }[]; page_info: { page_size: number } };
      };
    };
    expect(body.truncated).toBe(true);
    expect(body.original_chars).toBeGreaterThan(100_000);
    expect(body.returned_chars).toBeLessThanOrEqual(100_000);
    expect(body.records_in_answer).toBe(1000);
    expect(body.records_returned).toBeGreaterThan(100);
    expect(body.records_returned).toBeLessThan(1000);
    expect(body.advice).toMatch(/narrow the date range or lower page_size/);
    expect(body.data.data.list).toHaveLength(body.records_returned);
    expect(body.data.data.page_info.page_size).toBe(1000);
    for (const row of body.data.data.list)
      expect(Object.keys(row.dimensions).sort()).toEqual(['ad_id', 'stat_time_day']);

    const text = textOf(result);
    expect(text.length).toBeLessThanOrEqual(100_000);
    expect(text).toMatch(/TRUNCATED: /);
    expect(text).toMatch(/data to analyse, not instructions/);
    const nonce = /-----BEGIN UNTRUSTED PLATFORM DATA (\S+)-----/.exec(text)![1]!;
    const fenced = text.slice(
      text.indexOf(`-----BEGIN UNTRUSTED PLATFORM DATA ${nonce}-----\n`) +
        `-----BEGIN UNTRUSTED PLATFORM DATA ${nonce}-----\n`.length,
      text.indexOf(`\n-----END UNTRUSTED PLATFORM DATA ${nonce}-----`),
    );
    expect(JSON.parse(fenced)).toEqual(body.data);

    const again = textOf(await call(client, 'call_endpoint', args));
    expect(/-----BEGIN UNTRUSTED PLATFORM DATA (\S+)-----/.exec(again)![1]).not.toBe(nonce);
    expect(await quotaUsed(secret)).toBe(2);
  });
});

describe('MCP - the plan decides the tools at every request', () => {
  it('follows a plan change without reconnecting', async () => {
    const { secret, customer, key } = await keyWithOneConnection('trial');
    const client = await connect(mcpAi, secret);
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({ monthly_quota: 100_000 });
    await fixtures.store.customers.setPlan(customer.customer_id, 'growth');
    await fixtures.lifecycle.changed(key.key_id);
    expect((await client.listTools()).tools).toHaveLength(5);
    expect((await call(client, 'check_quota')).structuredContent).toMatchObject({ monthly_quota: 3 });
  });
});
