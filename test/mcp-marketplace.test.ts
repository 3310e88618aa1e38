import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * The three marketplace apps over MCP end to end: the SDK's client against an mcp-server process, with edge-auth,
 * quota-actor, provider-proxy and the platform sandbox (which verifies every signature) as real processes. The key
 * holds one shop's three connections (seller, ads, affiliate), as a seller using all three apps would.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let rest: string;
let mcp: string;

type App = 'marketplace' | 'marketplace-ads' | 'marketplace-affiliate';
const APPS: App[] = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'];
const CONVERSIONS = '/api/v2/ams/get_conversion_report';
const ITEMS = '/api/v2/product/get_item_list';
const ADS_DAILY = '/api/v2/ads/get_all_cpc_ads_daily_performance';

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

async function shopKey(shopIndex = 0) {
  const customer = await fixtures.customer('business');
  const connections = {} as Record<App, Awaited<ReturnType<GatewayFixtures['marketplaceConnection']>>>;
  for (const app of APPS) {
    connections[app] = await fixtures.marketplaceConnection(customer.customer_id, app, shopIndex);
  }
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: [...APPS],
    accountIds: APPS.map((app) => connections[app].accountId),
  });
  return { secret, connections };
}

async function connect(secret: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcp), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  const client = new Client({ name: 'mcp-marketplace-test', version: '1.0.0' });
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

interface Envelope {
  request_id: string;
  error: string;
  message: string;
  response?: unknown;
}

interface Found {
  suggestion: {
    provider: string;
    path: string;
    params: Record<string, unknown>;
    missing_params: { name: string; how_to_get: string }[];
    next_call: { arguments: { provider: string; path: string; params: Record<string, unknown> } };
  };
}

function ddmmyyyy(day: number): string {
  const iso = new Date(day * 86_400_000).toISOString();
  return `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;
}

describe('MCP on the marketplace apps', () => {
  it('lists the three apps and describes the conversion report with page-number paging', async () => {
    const { secret, connections } = await shopKey();
    const client = await connect(secret);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
      'call_endpoint',
      'check_quota',
      'describe_endpoint',
      'find_endpoint',
      'list_endpoints',
    ]);
    const listed = (await call(client, 'list_endpoints')).structuredContent as {
      endpoints: { provider: string; path: string }[];
      connections: { provider: string; account_id: string }[];
    };
    for (const app of APPS) {
      expect(listed.connections).toContainEqual({ provider: app, account_id: connections[app].accountId });
    }
    expect(listed.endpoints.map((endpoint) => `${endpoint.provider} ${endpoint.path}`)).toEqual(
      expect.arrayContaining([
        'marketplace /api/v2/order/get_order_list',
        'marketplace-ads /api/v2/ads/get_total_balance',
        `marketplace-affiliate ${CONVERSIONS}`,
      ]),
    );

    const described = (
      await call(client, 'describe_endpoint', { provider: 'marketplace-affiliate', path: CONVERSIONS })
    ).structuredContent as {
      paging: { style: string; page_param: string; page_size_param: string; page_info_path: string; how: string };
    };
    expect(described.paging).toMatchObject({
      style: 'page_no',
      page_param: 'page_no',
      page_size_param: 'page_size',
      page_info_path: 'response.has_more',
    });
    expect(described.paging.how).toMatch(/page_no from 1 while response\.has_more/);
  });

  it.each([
    ['orders of the last week', 'marketplace', '/api/v2/order/get_order_list'],
    ['ad spend per day last 14 days', 'marketplace-ads', ADS_DAILY],
    ['affiliate sales last 30 days', 'marketplace-affiliate', '/api/v2/ams/get_shop_performance'],
  ] as const)('answers "%s" from %s %s: find_endpoint, then call_endpoint', async (question, app, path) => {
    const { secret, connections } = await shopKey();
    const client = await connect(secret);
    const found = (await call(client, 'find_endpoint', { question })).structuredContent as unknown as Found;
    expect([found.suggestion.provider, found.suggestion.path]).toEqual([app, path]);
    expect(found.suggestion.missing_params).toEqual([]);

    const answer = await call(client, 'call_endpoint', {
      ...found.suggestion.next_call.arguments,
      account_id: connections[app].accountId,
    });
    expect(answer.isError).toBeFalsy();
    const data = (answer.structuredContent as { data: Envelope }).data;
    expect([data.error, data.message]).toEqual(['', '']);
    expect(data.response).toBeDefined();
    expect(textOf(answer)).toMatch(/-----BEGIN UNTRUSTED PLATFORM DATA \S+-----/);
    if (app === 'marketplace-ads') expect(Array.isArray(data.response)).toBe(true);
    if (app === 'marketplace') {
      expect((data.response as { order_list: unknown[] }).order_list.length).toBeGreaterThan(0);
    }
    expect(await quotaUsed(secret)).toBe(1);
  });

  it('says which parameter campaign performance still needs, and where to get it', async () => {
    const { secret } = await shopKey();
    const client = await connect(secret);
    const found = (await call(client, 'find_endpoint', { question: 'campaign performance' }))
      .structuredContent as unknown as Found;
    expect(found.suggestion.path).toBe('/api/v2/ads/get_product_campaign_daily_performance');
    expect(found.suggestion.missing_params.map((param) => param.name)).toEqual(['campaign_id_list']);
    expect(found.suggestion.missing_params[0]!.how_to_get).toContain('/api/v2/ads/get_product_level_campaign_id_list');
  });

  it('pages the item list by offset and keeps every digit of ids above 2^32', async () => {
    const { secret, connections } = await shopKey();
    const client = await connect(secret);
    const page = async (offset: number) => {
      const result = await call(client, 'call_endpoint', {
        provider: 'marketplace',
        path: ITEMS,
        account_id: connections.marketplace.accountId,
        params: { offset, page_size: 10, item_status: ['NORMAL', 'UNLIST'] },
      });
      expect(result.isError).toBeFalsy();
      const data = (result.structuredContent as { data: Envelope }).data;
      return {
        text: textOf(result),
        response: data.response as {
          item: { item_id: number | string }[];
          has_next_page: boolean;
          next_offset: number;
        },
      };
    };
    const first = await page(0);
    expect(first.response.item).toHaveLength(10);
    expect(first.response.has_next_page).toBe(true);
    expect(Number(first.response.next_offset)).toBe(10);
    const second = await page(Number(first.response.next_offset));
    expect(second.response.item.length).toBeGreaterThan(0);
    const firstIds = new Set(first.response.item.map((item) => String(item.item_id)));
    expect(second.response.item.some((item) => firstIds.has(String(item.item_id)))).toBe(false);

    // The text passed on holds the ids as the platform sent them: JSON numbers with every digit.
    const ids = [...`${first.text}\n${second.text}`.matchAll(/"item_id":(\d+)/g)].map((match) => match[1]!);
    expect(ids.length).toBeGreaterThanOrEqual(20);
    expect(ids.some((id) => BigInt(id) > 2n ** 32n)).toBe(true);
    for (const item of [...first.response.item, ...second.response.item]) {
      expect(ids).toContain(String(item.item_id));
    }
    expect(await quotaUsed(secret)).toBe(2);
  });

  it('returns an error string of the platform (HTTP 200) as platform_error, counted', async () => {
    const { secret, connections } = await shopKey();
    const client = await connect(secret);
    const today = Math.floor(Date.now() / 86_400_000);
    // Valid for the catalogue (two DD-MM-YYYY days), refused by the platform: more than one month.
    const refused = await call(client, 'call_endpoint', {
      provider: 'marketplace-ads',
      path: ADS_DAILY,
      account_id: connections['marketplace-ads'].accountId,
      params: { start_date: ddmmyyyy(today - 60), end_date: ddmmyyyy(today - 1) },
    });
    expect(refused.isError).toBe(true);
    const text = textOf(refused);
    expect(text).toMatch(/^platform_error: The platform refused the request \(HTTP 200, code error_param\)/);
    expect(text).toContain('"error":"error_param"');
    expect(text).toContain('"platform_code":"error_param"');
    expect(await quotaUsed(secret)).toBe(1);
  });

  it('answers connection_needs_regrant once the shop cancels the app grant, without counting', async () => {
    const { secret, connections } = await shopKey(1);
    const client = await connect(secret);
    const shop = connections.marketplace;
    const before = await call(client, 'call_endpoint', {
      provider: 'marketplace',
      path: '/api/v2/shop/get_shop_info',
      account_id: shop.accountId,
    });
    expect(before.isError).toBeFalsy();

    const revoked = await fetch(`${cluster.sandbox.url}/_sandbox/marketplace/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        partner_id: Number(cluster.secrets.marketplaceApps.marketplace.partnerId),
        shop_id: Number(shop.shopId),
      }),
    });
    expect(revoked.ok).toBe(true);

    const after = await call(client, 'call_endpoint', {
      provider: 'marketplace',
      path: '/api/v2/shop/get_shop_info',
      account_id: shop.accountId,
    });
    expect(after.isError).toBe(true);
    const text = textOf(after);
    expect(text).toMatch(/^connection_needs_regrant: /);
    expect(text).toMatch(/re-grant this connection in the portal/);
    expect(text).toContain(shop.accountId);
    expect(text).not.toContain('error_auth');
    // Only that app's grant died: the ads app of the same shop still answers.
    const ads = await call(client, 'call_endpoint', {
      provider: 'marketplace-ads',
      path: '/api/v2/ads/get_total_balance',
      account_id: connections['marketplace-ads'].accountId,
    });
    expect(ads.isError).toBeFalsy();
    expect(await quotaUsed(secret)).toBe(2);
  });
});
