import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * search-ads (Campaign Management API v5) over MCP end to end: the SDK's client against an mcp-server process, with
 * edge-auth, quota-actor, provider-proxy (tokens minted from an ES256 client assertion) and the platform sandbox as
 * real processes. The key holds one search-ads connection, an API user registered at the sandbox.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let rest: string;
let mcp: string;

const REPORT = '/api/v5/reports/campaigns';
const CAMPAIGNS = '/api/v5/campaigns';
const ADGROUPS = '/api/v5/campaigns/{campaignId}/adgroups';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  rest = cluster.edges[0]!.url;
  mcp = `${(await cluster.startMcp({})).url}/mcp`;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('business', { rate_limit_rps: 1000, rate_burst: 1000, monthly_quota: 100_000 });
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

async function searchAdsKey() {
  const customer = await fixtures.customer('business');
  const connection = await fixtures.searchAdsConnection(customer.customer_id);
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['search-ads'],
    accountIds: [connection.accountId],
  });
  return { secret, connection };
}

async function connect(secret: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcp), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  const client = new Client({ name: 'mcp-search-ads-test', version: '1.0.0' });
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

async function quotaUsed(secret: string): Promise<number> {
  const me = await rawRequest(rest, '/v1/me', { headers: { 'X-API-Key': secret } });
  return me.json<{ quota_used: number }>().quota_used;
}

interface Envelope<T> {
  data: T;
  pagination: { totalResults: number; startIndex: number; itemsPerPage: number } | null;
  error: null | { errors: { messageCode: string }[] };
}

interface Campaign {
  id: number | string;
  name: string;
}

/** Last week (Monday to Sunday, UTC) before `now`. */
function lastWeek(now: Date): { start: string; end: string } {
  const today = Math.floor(now.getTime() / 86_400_000);
  const monday = today - ((new Date(today * 86_400_000).getUTCDay() + 6) % 7);
  const iso = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
  return { start: iso(monday - 7), end: iso(monday - 1) };
}

describe('MCP on search-ads', () => {
  it('lists the path templates and tells the v5 sunset in list_endpoints and describe_endpoint', async () => {
    const { secret, connection } = await searchAdsKey();
    const client = await connect(secret);
    const listed = await call(client, 'list_endpoints');
    const structured = listed.structuredContent as {
      providers: { provider: string; deprecations?: { sunset: string }[] }[];
      endpoints: { provider: string; path: string; path_ids?: string[]; lifecycle?: { sunset: string } }[];
      connections: { provider: string; account_id: string }[];
    };
    expect(structured.connections).toEqual([{ provider: 'search-ads', account_id: connection.accountId }]);
    expect(structured.providers[0]).toMatchObject({ provider: 'search-ads', deprecations: [{ sunset: '2027-01-26' }] });
    expect(structured.endpoints.find((endpoint) => endpoint.path === ADGROUPS)).toMatchObject({
      path_ids: ['campaignId'],
      lifecycle: { sunset: '2027-01-26' },
    });
    expect(textOf(listed)).toMatch(/Deprecation: search-ads API v5 is retired by the platform on 2027-01-26/);

    const described = await call(client, 'describe_endpoint', { provider: 'search-ads', path: ADGROUPS });
    expect(described.isError).toBeFalsy();
    expect(described.structuredContent).toMatchObject({
      lifecycle: { api_version: 'v5', deprecated_since: '2026-11-25', sunset: '2027-01-26' },
      path_ids: [{ name: 'campaignId' }],
      paging: { style: 'offset', page_param: 'offset', page_size_param: 'limit' },
    });
    expect(textOf(described)).toMatch(/2027-01-26/);
    expect(textOf(described)).toMatch(/\{campaignId\} is an id \(digits\) to put in the path/);
    expect(await quotaUsed(secret)).toBe(0);
  });

  it('answers "taps and spend per campaign last week": find_endpoint builds the report body, call_endpoint runs it', async () => {
    const { secret, connection } = await searchAdsKey();
    const client = await connect(secret);
    const found = (await call(client, 'find_endpoint', { question: 'taps and spend per campaign last week' }))
      .structuredContent as {
      suggestion: {
        path: string;
        missing_params: unknown[];
        body: Record<string, unknown>;
        next_call: { arguments: Record<string, unknown> };
      };
    };
    const week = lastWeek(new Date());
    expect(found.suggestion.path).toBe(REPORT);
    expect(found.suggestion.missing_params).toEqual([]);
    expect(found.suggestion.body).toMatchObject({
      startTime: week.start,
      endTime: week.end,
      returnRowTotals: true,
      selector: { orderBy: [{ field: 'localSpend', sortOrder: 'DESCENDING' }], pagination: { offset: 0, limit: 1000 } },
    });

    const answer = await call(client, 'call_endpoint', found.suggestion.next_call.arguments);
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ account_id: connection.accountId, http_status: 200 });
    const data = (answer.structuredContent as { data: Envelope<{ reportingDataResponse: { row: unknown[] } }> }).data;
    expect(data.error).toBeNull();
    const rows = data.data.reportingDataResponse.row as {
      metadata: { campaignId: number | string };
      total: { localSpend: { amount: string } };
    }[];
    expect(rows.length).toBeGreaterThan(0);
    const spends = rows.map((row) => Number(row.total.localSpend.amount));
    expect(spends).toEqual([...spends].sort((a, b) => b - a));
    expect(textOf(answer)).toMatch(/-----BEGIN UNTRUSTED PLATFORM DATA \S+-----/);
    expect(await quotaUsed(secret)).toBe(1);
  });

  it('pages the campaign list by offset and calls a concrete templated path, keeping the digits of the ids', async () => {
    const { secret } = await searchAdsKey();
    const client = await connect(secret);
    const page = async (offset: number) => {
      const result = await call(client, 'call_endpoint', {
        provider: 'search-ads',
        path: CAMPAIGNS,
        params: { limit: 5, offset },
      });
      expect(result.isError).toBeFalsy();
      return { text: textOf(result), envelope: (result.structuredContent as { data: Envelope<Campaign[]> }).data };
    };
    const first = await page(0);
    expect(first.envelope.data).toHaveLength(5);
    expect(first.envelope.pagination).toMatchObject({ startIndex: 0, itemsPerPage: 5 });
    expect(first.envelope.pagination!.totalResults).toBeGreaterThan(10);
    const second = await page(5);
    expect(second.envelope.data).toHaveLength(5);
    expect(second.envelope.pagination).toMatchObject({ startIndex: 5 });
    const firstIds = first.envelope.data.map((campaign) => String(campaign.id));
    expect(second.envelope.data.some((campaign) => firstIds.includes(String(campaign.id)))).toBe(false);

    // The ids pass as the platform sent them: JSON numbers with every digit, about half above 2^32.
    const ids = [...`${first.text}\n${second.text}`.matchAll(/"id":(\d+),"orgId"/g)].map((match) => match[1]!);
    expect(ids).toHaveLength(10);
    expect(ids).toEqual([...firstIds, ...second.envelope.data.map((campaign) => String(campaign.id))]);
    const big = ids.find((id) => BigInt(id) > 2n ** 32n) ?? ids[0]!;

    const adGroups = await call(client, 'call_endpoint', {
      provider: 'search-ads',
      path: `/api/v5/campaigns/${big}/adgroups`,
      params: { limit: 20 },
    });
    expect(adGroups.isError).toBeFalsy();
    const groups = (adGroups.structuredContent as { data: Envelope<{ campaignId: number | string }[]> }).data.data;
    expect(groups.length).toBeGreaterThan(0);
    expect(groups.every((group) => String(group.campaignId) === big)).toBe(true);
    expect(textOf(adGroups)).toContain(`"campaignId":${big}`);
    expect(await quotaUsed(secret)).toBe(3);
  });

  it('refuses the template itself without counting, and returns a 404 of the platform as platform_error, counted', async () => {
    const { secret } = await searchAdsKey();
    const client = await connect(secret);
    const template = await call(client, 'call_endpoint', { provider: 'search-ads', path: ADGROUPS });
    expect(template.isError).toBe(true);
    expect(textOf(template)).toMatch(/^invalid_params: .*\{campaignId\}/);
    expect(await quotaUsed(secret)).toBe(0);

    const missing = await call(client, 'call_endpoint', { provider: 'search-ads', path: '/api/v5/campaigns/1' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^platform_error: The platform refused the request \(HTTP 404, code NOT_FOUND\)/);
    expect(textOf(missing)).toContain('"messageCode":"NOT_FOUND"');
    expect(await quotaUsed(secret)).toBe(1);
  });
});
