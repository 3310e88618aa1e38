import { createHmac } from 'node:crypto';
import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * video-shop end to end: a client written for the Shop Partner API signs its own requests with its own app key
 * and secret, as it would against the platform; only the origin and our two headers change. The gateway drops
 * its credentials and signs again with the connection's; the sandbox verifies every signature.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  // A client paging through a shop makes dozens of calls in a second; the trial plan's 5 per second would refuse them.
  await fixtures.setPlan('trial', { rate_limit_rps: 1_000 });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

const CLIENT_APP_KEY = 'client-own-app-key';
const CLIENT_SECRET = 'client-own-secret';
const CLIENT_TOKEN = 'client-own-access-token';

/** What a platform client does: app_key, timestamp, shop_cipher, sign over the query and body, token header. */
function clientRequest(
  path: string,
  params: Record<string, string>,
  body?: object,
): { target: string; headers: Record<string, string>; body?: string } {
  const query: Record<string, string> = {
    ...params,
    app_key: CLIENT_APP_KEY,
    timestamp: String(Math.floor(Date.now() / 1000)),
    shop_cipher: 'CLIENT_CIPHER',
  };
  const text = body === undefined ? '' : JSON.stringify(body);
  const base =
    path +
    Object.keys(query)
      .sort()
      .map((name) => `${name}${query[name]}`)
      .join('') +
    text;
  const sign = createHmac('sha256', CLIENT_SECRET).update(`${CLIENT_SECRET}${base}${CLIENT_SECRET}`).digest('hex');
  const search = new URLSearchParams({ ...query, sign, access_token: CLIENT_TOKEN }).toString();
  return {
    target: `/v1/video-shop${path}?${search}`,
    headers: {
      'x-tts-access-token': CLIENT_TOKEN,
      'content-type': 'application/json',
      ...(text ? {} : {}),
    },
    ...(text ? { body: text } : {}),
  };
}

async function call(
  secret: string,
  accountId: string,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string> = {},
  body?: object,
): Promise<RawResponse> {
  const request = clientRequest(path, params, body);
  return rawRequest(edge, request.target, {
    method,
    headers: { ...request.headers, 'X-API-Key': secret, 'X-Account-Id': accountId },
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
}

interface Envelope<T> {
  code: number;
  message: string;
  request_id: string;
  data: T;
}

async function customerWithShop() {
  const customer = await fixtures.customer();
  const shop = await fixtures.videoShopConnection(customer.customer_id);
  const ads = await fixtures.videoAdsConnection(customer.customer_id);
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['video-ads', 'video-shop'],
    accountIds: [shop.accountId, ads.accountId],
  });
  return { secret, shop };
}

describe('video-shop through the gateway', () => {
  it('reads every endpoint with a client of the platform, pages orders to the last page, and re-signs', async () => {
    const { secret, shop } = await customerWithShop();
    const { lastSeq } = await fixtures.sandboxRequests();

    const shops = await call(secret, shop.accountId, 'GET', '/authorization/202309/shops');
    expect(shops.status).toBe(200);
    const shopList = shops.json<Envelope<{ shops: { id: string }[] }>>();
    expect(shopList.code).toBe(0);
    expect(shopList.data.shops.map((s) => s.id)).toContain(shop.shopId);
    expect((await call(secret, shop.accountId, 'GET', '/seller/202309/shops')).json<Envelope<unknown>>().code).toBe(0);

    const orderIds: string[] = [];
    let token = '';
    let pages = 0;
    for (;;) {
      const page = await call(
        secret,
        shop.accountId,
        'POST',
        '/order/202309/orders/search',
        { page_size: '100', ...(token ? { page_token: token } : {}) },
        { create_time_ge: 0 },
      );
      expect(page.status).toBe(200);
      const answer = page.json<Envelope<{ orders: { id: string }[]; next_page_token: string; total_count: number }>>();
      expect(answer.code).toBe(0);
      orderIds.push(...answer.data.orders.map((order) => order.id));
      pages += 1;
      token = answer.data.next_page_token;
      if (!token) {
        expect(orderIds).toHaveLength(answer.data.total_count);
        break;
      }
      expect(pages).toBeLessThan(50);
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(orderIds).size).toBe(orderIds.length);

    const byIds = await call(secret, shop.accountId, 'GET', '/order/202309/orders', {
      ids: orderIds.slice(0, 3).join(','),
    });
    expect(byIds.json<Envelope<{ orders: { id: string }[] }>>().data.orders.map((o) => o.id)).toEqual(
      orderIds.slice(0, 3),
    );
    for (const version of ['202309', '202502']) {
      const products = await call(
        secret,
        shop.accountId,
        'POST',
        `/product/${version}/products/search`,
        { page_size: '20' },
        { status: 'ACTIVATE' },
      );
      expect(products.json<Envelope<{ products: unknown[] }>>().data.products.length).toBeGreaterThan(0);
    }
    const statements = await call(secret, shop.accountId, 'GET', '/finance/202309/statements', {
      sort_field: 'statement_time',
      page_size: '20',
    });
    expect(statements.json<Envelope<{ statements: unknown[] }>>().code).toBe(0);
    const performance = await call(secret, shop.accountId, 'GET', '/analytics/202405/shop/performance', {
      start_date_ge: '2026-11-01',
      end_date_lt: '2026-11-08',
      granularity: '1D',
    });
    const shopPerformance = performance.json<Envelope<{ performance: { intervals: unknown[] } }>>();
    expect({ code: shopPerformance.code, message: shopPerformance.message }).toEqual({ code: 0, message: 'Success' });
    expect(shopPerformance.data.performance.intervals).toHaveLength(7);

    // The platform saw the gateway's app, token, cipher and signature, never the client's.
    const seen = (await fixtures.sandboxRequests(lastSeq)).requests.filter((r) => r.path.startsWith('/video-shop/'));
    expect(seen.length).toBeGreaterThanOrEqual(pages + 6);
    for (const request of seen) {
      const query = new URLSearchParams(request.query);
      expect(query.get('app_key')).toBe(cluster.secrets.shopAppKey);
      expect(query.getAll('app_key')).toHaveLength(1);
      expect(query.getAll('sign')).toHaveLength(1);
      expect(query.get('access_token')).toBeNull();
      expect(request.query).not.toContain('CLIENT_CIPHER');
      expect(request.headers['x-tts-access-token']).toBe(shop.accessToken);
      expect(JSON.stringify(request)).not.toContain(CLIENT_TOKEN);
      expect(JSON.stringify(request)).not.toContain(CLIENT_APP_KEY);
    }
  }, 60_000);

  it.each([
    ['POST', '/order/202309/orders/576461413038785752/cancel'],
    ['POST', '/product/202309/products'],
    ['PUT', '/product/202309/products/1729382256910270001'],
    ['POST', '/product/202309/products/activate'],
    ['POST', '/event/202309/webhooks'],
    ['GET', '/api/v2/token/refresh'],
    // The auth host's token paths (token/get, token/refresh) through the API base URL, as clients that react to
    // an auth error try them, in any method and spelling.
    ['GET', '/api/v2/token/get'],
    ['POST', '/api/v2/token/get'],
    ['POST', '/api/v2/token/refresh'],
    ['GET', '/api/v2/token/get/'],
    ['GET', '/api/v2/token%2Fget'],
    ['GET', '/api/v2/token/%67et'],
    ['GET', '/api/v2/TOKEN/GET'],
    ['GET', '/authorization/202309/../../api/v2/token/refresh'],
    ['GET', '/authorization/202309/shops/../../../api/v2/token/get'],
    ['GET', '/api/v2/token/refresh;'],
    ['POST', '/order/202309/orders'],
    ['GET', '/order/202309/orders/search'],
    ['POST', '/order/202309/orders/search/'],
    ['POST', '/order/202309/orders%2Fsearch'],
    ['POST', '/ORDER/202309/orders/search'],
    ['POST', '/order/202309/./orders/search'],
  ])('refuses %s %s with 403 path_not_allowed before the sandbox', async (method, path) => {
    const { secret, shop } = await customerWithShop();
    const { lastSeq } = await fixtures.sandboxRequests();
    const response = await rawRequest(edge, `/v1/video-shop${path}?page_size=10`, {
      method,
      headers: { 'X-API-Key': secret, 'X-Account-Id': shop.accountId, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(response.json<{ code: string }>().code).toBe('path_not_allowed');
    const after = await fixtures.sandboxRequests(lastSeq);
    expect(after.requests.filter((r) => r.path.startsWith('/video-shop'))).toEqual([]);
  });

  it("returns a platform error in the platform's own envelope and status, and counts it (spec 7)", async () => {
    const { secret, shop } = await customerWithShop();
    const used = async () =>
      (await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).json<{ quota_used: number }>()
        .quota_used;
    const before = await used();
    const refused = await call(secret, shop.accountId, 'POST', '/order/202309/orders/search', {
      page_size: '10',
      page_token: 'not-a-token-of-this-query',
    });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).not.toBe('application/problem+json');
    const envelope = refused.json<Envelope<null>>();
    expect(envelope.code).not.toBe(0);
    expect(envelope.data).toBeNull();
    expect(await used()).toBe(before + 1);
  });

  it('answers 415, 413 and 400 for bodies it will not forward, without counting them', async () => {
    const { secret, shop } = await customerWithShop();
    const headers = { 'X-API-Key': secret, 'X-Account-Id': shop.accountId };
    const path = '/v1/video-shop/order/202309/orders/search?page_size=10';
    const before = (await rawRequest(edge, '/v1/me', { headers })).json<{ quota_used: number }>().quota_used;
    const asText = await rawRequest(edge, path, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect([asText.status, asText.json<{ code: string }>().code]).toEqual([415, 'unsupported_media_type']);
    const huge = await rawRequest(edge, path, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ buyer_user_id: 'x'.repeat(70_000) }),
    });
    expect([huge.status, huge.json<{ code: string }>().code]).toEqual([413, 'payload_too_large']);
    const unknownField = await rawRequest(edge, path, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"order_status":"SHIPPED_TO_MARS"}',
    });
    expect([unknownField.status, unknownField.json<{ code: string }>().code]).toEqual([400, 'invalid_request']);
    expect(unknownField.headers['content-type']).toBe('application/problem+json');
    const after = (await rawRequest(edge, '/v1/me', { headers })).json<{ quota_used: number }>().quota_used;
    expect(after).toBe(before);
  });

  it('answers 409 connection_needs_regrant, never the platform auth error, once the seller cancels the grant', async () => {
    const { secret, shop } = await customerWithShop();
    const first = await call(secret, shop.accountId, 'GET', '/authorization/202309/shops');
    expect(first.status).toBe(200);
    await fetch(`${cluster.sandbox.url}/_sandbox/video-shop/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ open_id: shop.openId }),
    });
    const refused = await call(secret, shop.accountId, 'GET', '/authorization/202309/shops');
    expect(refused.status).toBe(409);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    const problem = refused.json<{ code: string; detail: string }>();
    expect(problem.code).toBe('connection_needs_regrant');
    expect(problem.detail).toContain(shop.accountId);
    expect(refused.body.toString()).not.toMatch(/36009004|105002/);
    const stored = await fixtures.store.connections.findByAccountId(shop.accountId);
    expect(stored?.status).toBe('needs_regrant');
  });
});
