import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * video-shop over MCP end to end: the SDK's client against an mcp-server process, with edge-auth, quota-actor,
 * provider-proxy and the platform sandbox (which verifies every signature) as real processes. The key holds one
 * video-shop connection and one video-ads connection, as a seller with both would.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let rest: string;
let mcp: string;

const ORDERS = '/order/202309/orders/search';
const SHOPS = '/authorization/202309/shops';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  rest = cluster.edges[0]!.url;
  mcp = `${(await cluster.startMcp({})).url}/mcp`;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000, monthly_quota: 100_000 });
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

async function sellerKey() {
  const customer = await fixtures.customer('trial');
  const shop = await fixtures.videoShopConnection(customer.customer_id);
  const ads = await fixtures.videoAdsConnection(customer.customer_id);
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['video-ads', 'video-shop'],
    accountIds: [shop.accountId, ads.accountId],
  });
  return { secret, shop, ads };
}

async function connect(secret: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcp), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  const client = new Client({ name: 'mcp-video-shop-test', version: '1.0.0' });
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

interface OrdersAnswer {
  code: number;
  data: { orders: { id: string }[]; next_page_token: string; total_count: number };
}

describe('MCP on video-shop', () => {
  it('lists the shop endpoints with their starting point, and describes the orders search with body and cursor paging', async () => {
    const { secret, shop } = await sellerKey();
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
      next_step: string;
    };
    expect(listed.endpoints.filter((endpoint) => endpoint.provider === 'video-shop').map((e) => e.path)).toContain(
      ORDERS,
    );
    expect(listed.connections).toContainEqual({ provider: 'video-shop', account_id: shop.accountId });
    expect(listed.next_step).toContain(`video-shop: ${SHOPS}`);
    expect(listed.next_step).toContain('video-ads: /v1.3/oauth2/advertiser/get/');

    const describedResult = await call(client, 'describe_endpoint', { provider: 'video-shop', path: ORDERS });
    expect(textOf(describedResult)).not.toMatch(/^[a-z_]+: /);
    const described = describedResult.structuredContent as {
      method?: string;
      paging: { style: string; page_param: string; page_info_path: string };
      body: { description: string; schema?: unknown; example: unknown };
      example_call: { arguments: { body?: unknown } };
    };
    expect(described.paging).toMatchObject({ style: 'cursor', page_param: 'page_token' });
    expect(described.paging.page_info_path).toContain('next_page_token');
    expect(described.body.description).toMatch(/create_time_ge/);
    expect(JSON.stringify(described.body.schema ?? described.body.example)).toMatch(/create_time_ge/);
    expect(described.example_call.arguments.body).toBeDefined();
  });

  it('finds the orders search with a body for a question, and calls it, paging to the second page', async () => {
    const { secret, shop } = await sellerKey();
    const client = await connect(secret);
    const found = (await call(client, 'find_endpoint', { question: 'orders last week', provider: 'video-shop' }))
      .structuredContent as {
      suggestion: { path: string; body?: Record<string, number>; next_call: { arguments: { body?: unknown } } };
    };
    expect(found.suggestion.path).toBe(ORDERS);
    expect(Object.keys(found.suggestion.body ?? {}).sort()).toEqual(['create_time_ge', 'create_time_lt']);
    expect(found.suggestion.next_call.arguments.body).toEqual(found.suggestion.body);

    const first = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: ORDERS,
      account_id: shop.accountId,
      params: { page_size: 5 },
      body: { create_time_ge: 0 },
    });
    expect(first.isError).toBeFalsy();
    const firstData = (first.structuredContent as { data: OrdersAnswer; account_id: string }).data;
    expect((first.structuredContent as { account_id: string }).account_id).toBe(shop.accountId);
    expect(firstData.code).toBe(0);
    expect(firstData.data.orders).toHaveLength(5);
    expect(firstData.data.next_page_token).not.toBe('');
    expect(textOf(first)).toMatch(/-----BEGIN UNTRUSTED PLATFORM DATA \S+-----/);
    // Ids are strings and come through with every digit.
    for (const order of firstData.data.orders) {
      expect(typeof order.id).toBe('string');
      expect(textOf(first)).toContain(`"id":"${order.id}"`);
    }

    const second = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: ORDERS,
      account_id: shop.accountId,
      params: { page_size: 5, page_token: firstData.data.next_page_token },
      body: { create_time_ge: 0 },
    });
    expect(second.isError).toBeFalsy();
    const secondData = (second.structuredContent as { data: OrdersAnswer }).data;
    expect(secondData.data.orders).toHaveLength(5);
    const firstIds = new Set(firstData.data.orders.map((order) => order.id));
    expect(secondData.data.orders.some((order) => firstIds.has(order.id))).toBe(false);
    expect(await quotaUsed(secret)).toBe(2);
  });

  it('refuses a body the catalogue refuses without counting it', async () => {
    const { secret, shop } = await sellerKey();
    const client = await connect(secret);
    const refused = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: ORDERS,
      account_id: shop.accountId,
      params: { page_size: 5 },
      body: { order_status: 'SHIPPED_TO_MARS' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^invalid_params: /);
    expect(textOf(refused)).toMatch(/body\.order_status/);
    expect(await quotaUsed(secret)).toBe(0);
  });

  it('refuses a body larger than the REST limit with payload_too_large, sending nothing and counting nothing', async () => {
    const { secret, shop } = await sellerKey();
    const client = await connect(secret);
    const { lastSeq } = await fixtures.sandboxRequests();
    // 64 KiB of JSON and one byte more (docs/rest.md, 413 payload_too_large); well under the MCP request cap.
    const body = { buyer_user_id: 'x'.repeat(64 * 1024 - JSON.stringify({ buyer_user_id: '' }).length + 1) };
    const refused = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: ORDERS,
      account_id: shop.accountId,
      params: { page_size: 5 },
      body,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^payload_too_large: The body is 65537 bytes of JSON; the gateway forwards at most 65536/,
    );
    expect((await fixtures.sandboxRequests(lastSeq)).requests).toEqual([]);
    expect(await quotaUsed(secret)).toBe(0);
  });

  it('answers connection_needs_regrant, telling the assistant the customer must re-grant in the portal', async () => {
    const { secret, shop } = await sellerKey();
    const client = await connect(secret);
    const before = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: SHOPS,
      account_id: shop.accountId,
    });
    expect(before.isError).toBeFalsy();

    const revoked = await fetch(`${cluster.sandbox.url}/_sandbox/video-shop/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ open_id: shop.openId }),
    });
    expect(revoked.ok).toBe(true);

    const after = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: SHOPS,
      account_id: shop.accountId,
    });
    expect(after.isError).toBe(true);
    const text = textOf(after);
    expect(text).toMatch(/^connection_needs_regrant: /);
    expect(text).toMatch(/re-grant this connection in the portal/);
    expect(text).toMatch(/Do not retry/);
    expect(text).toContain(shop.accountId);
    expect(text).not.toMatch(/36009004|105002/);
    // The grant is dead for good: the next call says the same, and neither refused call counted.
    const again = await call(client, 'call_endpoint', {
      provider: 'video-shop',
      path: SHOPS,
      account_id: shop.accountId,
    });
    expect(textOf(again)).toMatch(/^connection_needs_regrant: /);
    expect(await quotaUsed(secret)).toBe(1);
  });
});
