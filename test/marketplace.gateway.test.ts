import { createHmac } from 'node:crypto';
import { endpointsOf } from '@gateway/catalogue';
import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * marketplace, marketplace-ads and marketplace-affiliate end to end: a client written for Open Platform v2 signs
 * its own requests with its own partner id and key (and sends its own token and shop id); only the origin and our
 * two headers change. The gateway drops all of it and signs again with the connection's app, token and shop.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

const CLIENT_PARTNER = '999001';
const CLIENT_KEY = 'client-own-partner-key';
const CLIENT_TOKEN = 'client-own-token';
const CLIENT_SHOP = '424242';
type Provider = 'marketplace' | 'marketplace-ads' | 'marketplace-affiliate';

/** What an Open Platform v2 client sends: its partner id, timestamp, token, shop and signature in the query. */
function clientTarget(provider: Provider, path: string, params: Record<string, string | string[]>): string {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const sign = createHmac('sha256', CLIENT_KEY)
    .update(`${CLIENT_PARTNER}${path}${timestamp}${CLIENT_TOKEN}${CLIENT_SHOP}`)
    .digest('hex');
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, item);
  }
  for (const [name, value] of Object.entries({
    partner_id: CLIENT_PARTNER,
    timestamp,
    access_token: CLIENT_TOKEN,
    shop_id: CLIENT_SHOP,
    sign,
  })) {
    query.append(name, value);
  }
  return `/v1/${provider}${path}?${query.toString()}`;
}

interface Envelope {
  request_id: string;
  error: string;
  message: string;
  response?: unknown;
  [field: string]: unknown;
}

async function read(
  secret: string,
  accountId: string,
  provider: Provider,
  path: string,
  params: Record<string, string | string[]> = {},
): Promise<Envelope> {
  const response: RawResponse = await rawRequest(edge, clientTarget(provider, path, params), {
    headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
  });
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  const envelope = response.json<Envelope>();
  expect({ path, error: envelope.error, message: envelope.message }).toEqual({ path, error: '', message: '' });
  return envelope;
}

function ddmmyyyy(date: Date): string {
  const iso = date.toISOString().slice(0, 10);
  return `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;
}

async function customerWithShop() {
  const customer = await fixtures.customer('business');
  const connections = {
    marketplace: await fixtures.marketplaceConnection(customer.customer_id, 'marketplace'),
    'marketplace-ads': await fixtures.marketplaceConnection(customer.customer_id, 'marketplace-ads'),
    'marketplace-affiliate': await fixtures.marketplaceConnection(customer.customer_id, 'marketplace-affiliate'),
  };
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['marketplace', 'marketplace-ads', 'marketplace-affiliate'],
    accountIds: Object.values(connections).map((c) => c.accountId),
  });
  return { secret, connections };
}

/**
 * A write path of the platform, `{module}/{call}`, spelt the ways a client or an attacker might to slip it past an
 * allowlist: percent-encoded (once and twice), an encoded slash, dot segments, a matrix suffix, upper case and a
 * trailing slash. Each is sent as POST (the write's method) and GET.
 */
function writeVariants(provider: Provider, module: string, call: string): [Provider, 'GET' | 'POST', string][] {
  const underscore = call.indexOf('_');
  const encoded = `${call.slice(0, underscore)}%5F${call.slice(underscore + 1)}`;
  const doubled = `${call.slice(0, underscore)}%255F${call.slice(underscore + 1)}`;
  const moduleName = module.slice(module.lastIndexOf('/') + 1);
  const paths = [
    `${module}/${encoded}`,
    `${module}/${doubled}`,
    `/api/v2/${moduleName}%2F${call}`,
    `/api/v2/shop/../${moduleName}/${call}`,
    `/api/v2/shop/get_shop_info/../../${moduleName}/${call}`,
    `${module}/./${call}`,
    `${module}/${call};`,
    `${module}/${call};jsessionid=1`,
    `${module}/${call.toUpperCase()}`,
    `${module.toUpperCase()}/${call}`,
    `${module}/${call}/`,
  ];
  return paths.flatMap((path) => [
    [provider, 'POST', path],
    [provider, 'GET', path],
  ]);
}

/** One customer for all the refusal cases: none of them reaches the platform, so they cannot disturb each other. */
let refusalCustomer: ReturnType<typeof customerWithShop> | undefined;

describe('marketplace apps through the gateway', () => {
  it('reads every endpoint of the three apps with a client of the platform, paging each to its end', async () => {
    const { secret, connections } = await customerWithShop();
    const shop = connections.marketplace;
    expect(new Set(Object.values(connections).map((c) => c.shopId)).size).toBe(1);
    expect(new Set(Object.values(connections).map((c) => c.accountId)).size).toBe(3);
    const { lastSeq } = await fixtures.sandboxRequests();
    const now = Math.floor(Date.now() / 1000);

    // seller app
    const info = await read(secret, shop.accountId, 'marketplace', '/api/v2/shop/get_shop_info');
    expect(typeof info['shop_name']).toBe('string');
    const orderSns: string[] = [];
    let cursor = '';
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const page = await read(secret, shop.accountId, 'marketplace', '/api/v2/order/get_order_list', {
        time_range_field: 'create_time',
        time_from: String(now - 14 * 86_400),
        time_to: String(now),
        page_size: '20',
        ...(cursor ? { cursor } : {}),
      });
      const body = page.response as { more: boolean; next_cursor: string; order_list: { order_sn: string }[] };
      orderSns.push(...body.order_list.map((order) => order.order_sn));
      if (!body.more) break;
      cursor = body.next_cursor;
    }
    expect(orderSns.length).toBeGreaterThan(20);
    expect(new Set(orderSns).size).toBe(orderSns.length);
    const detail = await read(secret, shop.accountId, 'marketplace', '/api/v2/order/get_order_detail', {
      order_sn_list: orderSns.slice(0, 5).join(','),
    });
    expect((detail.response as { order_list: unknown[] }).order_list).toHaveLength(5);

    const itemIds: number[] = [];
    let offset = 0;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const page = await read(secret, shop.accountId, 'marketplace', '/api/v2/product/get_item_list', {
        offset: String(offset),
        page_size: '10',
        item_status: ['NORMAL', 'UNLIST'],
      });
      const body = page.response as { item: { item_id: number }[]; has_next_page: boolean; next_offset: number };
      itemIds.push(...body.item.map((item) => item.item_id));
      if (!body.has_next_page) break;
      offset = body.next_offset;
    }
    expect(itemIds.length).toBeGreaterThan(10);
    const base = await read(secret, shop.accountId, 'marketplace', '/api/v2/product/get_item_base_info', {
      item_id_list: itemIds.slice(0, 3).join(','),
    });
    expect((base.response as { item_list: unknown[] }).item_list).toHaveLength(3);

    // ads app
    const ads = connections['marketplace-ads'];
    await read(secret, ads.accountId, 'marketplace-ads', '/api/v2/ads/get_total_balance');
    const daily = await read(
      secret,
      ads.accountId,
      'marketplace-ads',
      '/api/v2/ads/get_all_cpc_ads_daily_performance',
      {
        start_date: ddmmyyyy(new Date(Date.now() - 7 * 86_400_000)),
        end_date: ddmmyyyy(new Date(Date.now() - 86_400_000)),
      },
    );
    expect(Array.isArray(daily.response)).toBe(true);
    const campaignIds: number[] = [];
    let campaignOffset = 0;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const page = await read(
        secret,
        ads.accountId,
        'marketplace-ads',
        '/api/v2/ads/get_product_level_campaign_id_list',
        {
          ad_type: 'all',
          offset: String(campaignOffset),
          limit: '5',
        },
      );
      const body = page.response as { has_next_page: boolean; campaign_list: { campaign_id: number }[] };
      campaignIds.push(...body.campaign_list.map((campaign) => campaign.campaign_id));
      if (!body.has_next_page) break;
      campaignOffset += 5;
    }
    expect(campaignIds.length).toBeGreaterThan(0);
    const perCampaign = await read(
      secret,
      ads.accountId,
      'marketplace-ads',
      '/api/v2/ads/get_product_campaign_daily_performance',
      {
        start_date: ddmmyyyy(new Date(Date.now() - 7 * 86_400_000)),
        end_date: ddmmyyyy(new Date(Date.now() - 86_400_000)),
        campaign_id_list: campaignIds.slice(0, 2).join(','),
      },
    );
    expect(Array.isArray(perCampaign.response)).toBe(true);

    // affiliate app
    const affiliate = connections['marketplace-affiliate'];
    await read(secret, affiliate.accountId, 'marketplace-affiliate', '/api/v2/ams/get_performance_data_update_time', {
      marker_type: 'AmsMarker',
    });
    const yyyymmdd = (date: Date) => date.toISOString().slice(0, 10).replaceAll('-', '');
    await read(secret, affiliate.accountId, 'marketplace-affiliate', '/api/v2/ams/get_shop_performance', {
      period_type: 'Last7d',
      start_date: yyyymmdd(new Date(Date.now() - 7 * 86_400_000)),
      end_date: yyyymmdd(new Date(Date.now() - 86_400_000)),
      order_type: 'ConfirmedOrder',
      channel: 'AllChannel',
    });
    let conversions = 0;
    for (let pageNo = 1; ; pageNo++) {
      expect(pageNo).toBeLessThan(100);
      const page = await read(
        secret,
        affiliate.accountId,
        'marketplace-affiliate',
        '/api/v2/ams/get_conversion_report',
        {
          page_no: String(pageNo),
          page_size: '20',
          place_order_time_start: String(now - 30 * 86_400),
          place_order_time_end: String(now),
        },
      );
      const body = page.response as { list: unknown[]; has_more: boolean };
      conversions += body.list.length;
      if (!body.has_more) break;
    }
    expect(conversions).toBeGreaterThan(0);

    // The platform saw each app's own partner id, the connection's token and shop, and the gateway's signature.
    const seen = (await fixtures.sandboxRequests(lastSeq)).requests.filter((r) => r.path.startsWith('/marketplace/'));
    expect(seen.length).toBeGreaterThan(10);
    for (const request of seen) {
      const query = new URLSearchParams(request.query);
      const provider: Provider = request.path.includes('/ads/')
        ? 'marketplace-ads'
        : request.path.includes('/ams/')
          ? 'marketplace-affiliate'
          : 'marketplace';
      expect(query.getAll('partner_id')).toEqual([cluster.secrets.marketplaceApps[provider].partnerId]);
      expect(query.getAll('access_token')).toEqual([connections[provider].accessToken]);
      expect(query.getAll('shop_id')).toEqual([shop.shopId]);
      expect(query.getAll('sign')).toHaveLength(1);
      expect(JSON.stringify(request)).not.toContain(CLIENT_TOKEN);
      expect(JSON.stringify(request)).not.toContain(CLIENT_PARTNER);
      expect(JSON.stringify(request)).not.toContain(CLIENT_SHOP);
    }
  }, 90_000);

  it.each([
    ['marketplace', 'GET', '/api/v2/ads/get_total_balance'],
    ['marketplace', 'GET', '/api/v2/ams/get_shop_performance'],
    ['marketplace-ads', 'GET', '/api/v2/shop/get_shop_info'],
    ['marketplace-affiliate', 'GET', '/api/v2/order/get_order_list'],
    ['marketplace', 'POST', '/api/v2/order/cancel_order'],
    ['marketplace', 'POST', '/api/v2/logistics/ship_order'],
    ['marketplace', 'POST', '/api/v2/product/add_item'],
    ['marketplace', 'POST', '/api/v2/product/update_item'],
    ['marketplace', 'POST', '/api/v2/auth/token/get'],
    ['marketplace', 'POST', '/api/v2/auth/access_token/get'],
    ['marketplace-ads', 'POST', '/api/v2/ads/create_product_level_campaign'],
    ['marketplace-ads', 'POST', '/api/v2/ads/edit_product_level_campaign_setting_info'],
    ['marketplace', 'POST', '/api/v2/shop/get_shop_info'],
    ['marketplace', 'GET', '/api/v2/shop/get%5Fshop%5Finfo'],
    ['marketplace', 'GET', '/api/v2/shop/get_shop_info/'],
    ['marketplace', 'GET', '/api/v2//shop/get_shop_info'],
    // Encoded and reshaped spellings of write paths: the allowlist matches the raw path, so none of them is a read.
    ...writeVariants('marketplace', '/api/v2/order', 'cancel_order'),
    ...writeVariants('marketplace', '/api/v2/product', 'update_item'),
    ...writeVariants('marketplace-ads', '/api/v2/ads', 'create_product_level_campaign'),
    ...writeVariants('marketplace-ads', '/api/v2/ads', 'edit_product_level_campaign_setting_info'),
    // The affiliate app has no write the sandbox serves; another app's writes are as foreign to it.
    ...writeVariants('marketplace-affiliate', '/api/v2/order', 'cancel_order'),
    ...writeVariants('marketplace-affiliate', '/api/v2/ads', 'create_product_level_campaign'),
  ] as const)('refuses %s %s %s with 403 path_not_allowed before the sandbox', async (provider, method, path) => {
    refusalCustomer ??= customerWithShop();
    const { secret, connections } = await refusalCustomer;
    const { lastSeq } = await fixtures.sandboxRequests();
    const response = await rawRequest(edge, `/v1/${provider}${path}`, {
      method,
      headers: {
        'X-API-Key': secret,
        'X-Account-Id': connections[provider].accountId,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect([response.status, response.json<{ code: string }>().code]).toEqual([403, 'path_not_allowed']);
    const after = await fixtures.sandboxRequests(lastSeq);
    expect(after.requests.filter((r) => r.path.startsWith('/marketplace'))).toEqual([]);
  });

  it('passes 64-bit ids through as the exact bytes the platform sent', async () => {
    const { secret, connections } = await customerWithShop();
    const response = await rawRequest(
      edge,
      clientTarget('marketplace', '/api/v2/product/get_item_list', {
        offset: '0',
        page_size: '50',
        item_status: 'NORMAL',
      }),
      { headers: { 'X-API-Key': secret, 'X-Account-Id': connections.marketplace.accountId } },
    );
    const raw = response.body.toString();
    const ids = [...raw.matchAll(/"item_id":(\d+)/g)].map((match) => match[1]!);
    expect(ids.some((id) => BigInt(id) > 2n ** 32n)).toBe(true);
  });

  it('answers 409 connection_needs_regrant once the shop cancels one app, and only for that app', async () => {
    const { secret, connections } = await customerWithShop();
    await fetch(`${cluster.sandbox.url}/_sandbox/marketplace/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        partner_id: Number(cluster.secrets.marketplaceApps['marketplace-ads'].partnerId),
        shop_id: Number(connections['marketplace-ads'].shopId),
      }),
    });
    const refused = await rawRequest(edge, clientTarget('marketplace-ads', '/api/v2/ads/get_total_balance', {}), {
      headers: { 'X-API-Key': secret, 'X-Account-Id': connections['marketplace-ads'].accountId },
    });
    expect([refused.status, refused.json<{ code: string }>().code]).toEqual([409, 'connection_needs_regrant']);
    expect(refused.body.toString()).not.toContain('error_auth');
    await read(secret, connections.marketplace.accountId, 'marketplace', '/api/v2/shop/get_shop_info');
  });
  it("passes the platform's daily call limit (error_limit) through in its envelope with HTTP 200, and counts it", async () => {
    const { secret, connections } = await customerWithShop();
    const quotaUsed = async () =>
      (await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).json<{ quota_used: number }>()
        .quota_used;
    const setLimit = async (dailyLimit: number | null) => {
      const response = await fetch(`${cluster.sandbox.url}/_sandbox/marketplace/call-limit`, {
        method: 'POST',
        body: JSON.stringify({ daily_limit: dailyLimit }),
      });
      expect(response.status).toBe(200);
    };
    const shopInfo = () =>
      rawRequest(edge, clientTarget('marketplace', '/api/v2/shop/get_shop_info', {}), {
        headers: { 'X-API-Key': secret, 'X-Account-Id': connections.marketplace.accountId },
      });
    await setLimit(1);
    try {
      const before = await quotaUsed();
      const { lastSeq } = await fixtures.sandboxRequests();
      expect((await shopInfo()).json<Envelope>().error).toBe('');
      const limited = await shopInfo();
      expect(limited.status).toBe(200);
      expect(limited.headers['content-type']).toMatch(/^application\/json/);
      expect(limited.json<Envelope>()).toEqual({
        request_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        error: 'error_limit',
        message: expect.any(String),
      });
      // Neither retried nor taken for a token error (no refresh, no needs_regrant): the platform saw each call once.
      const seen = (await fixtures.sandboxRequests(lastSeq)).requests.filter((r) => r.path.startsWith('/marketplace/'));
      expect(seen.map((r) => r.path)).toEqual([
        '/marketplace/api/v2/shop/get_shop_info',
        '/marketplace/api/v2/shop/get_shop_info',
      ]);
      // docs/rest.md, Errors: a platform error keeps its envelope and status and counts toward the quota.
      expect(await quotaUsed()).toBe(before + 2);
      // The limit is per app and shop: the ads app still reads the same shop.
      await read(secret, connections['marketplace-ads'].accountId, 'marketplace-ads', '/api/v2/ads/get_total_balance');
    } finally {
      await setLimit(null);
    }
    await read(secret, connections.marketplace.accountId, 'marketplace', '/api/v2/shop/get_shop_info');
  });

  it('accepts every enum value the catalogue declares for a marketplace parameter, and the sandbox accepts no other', async () => {
    const { secret, connections } = await customerWithShop();
    const now = Math.floor(Date.now() / 1000);
    const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000);
    const yyyymmdd = (date: Date) => date.toISOString().slice(0, 10).replaceAll('-', '');
    // Two months back, whole: a Month period that ends well before the last report date.
    const monthStart = new Date(Date.UTC(day(0).getUTCFullYear(), day(0).getUTCMonth() - 2, 1));
    const monthEnd = new Date(Date.UTC(day(0).getUTCFullYear(), day(0).getUTCMonth() - 1, 0));
    const periodDates: Record<string, [Date, Date]> = {
      Day: [day(-3), day(-3)],
      Week: [day(-9), day(-3)],
      Last7d: [day(-9), day(-3)],
      Last30d: [day(-32), day(-3)],
      Month: [monthStart, monthEnd],
    };
    const shopPerformance = (period: string) => ({
      period_type: period,
      start_date: yyyymmdd(periodDates[period]?.[0] ?? day(-3)),
      end_date: yyyymmdd(periodDates[period]?.[1] ?? day(-3)),
      order_type: 'ConfirmedOrder',
      channel: 'AllChannel',
    });
    /** Valid parameters of each endpoint that has enum parameters; the parameter under test is set over them. */
    const base: Record<string, (param: string, value: string) => Record<string, string>> = {
      '/api/v2/order/get_order_list': () => ({
        time_range_field: 'create_time',
        time_from: String(now - 14 * 86_400),
        time_to: String(now),
        page_size: '1',
      }),
      '/api/v2/product/get_item_list': () => ({ offset: '0', page_size: '1' }),
      '/api/v2/ads/get_product_level_campaign_id_list': () => ({ offset: '0', limit: '1' }),
      '/api/v2/ams/get_performance_data_update_time': () => ({}),
      '/api/v2/ams/get_shop_performance': (param, value) =>
        shopPerformance(param === 'period_type' && value in periodDates ? value : 'Day'),
    };
    const call = async (provider: Provider, path: string, params: Record<string, string>) => {
      const response = await rawRequest(edge, clientTarget(provider, path, params), {
        headers: { 'X-API-Key': secret, 'X-Account-Id': connections[provider].accountId },
      });
      return response.json<Envelope>();
    };
    let checked = 0;
    for (const provider of ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const) {
      for (const endpoint of endpointsOf(provider)) {
        for (const param of endpoint.params.filter((p) => p.values !== undefined)) {
          const build = base[endpoint.path];
          expect({ endpoint: endpoint.path, param: param.name, covered: build !== undefined }).toMatchObject({
            covered: true,
          });
          for (const value of param.values!) {
            const answer = await call(provider, endpoint.path, { ...build!(param.name, value), [param.name]: value });
            expect({ param: param.name, value, error: answer.error, message: answer.message }).toEqual({
              param: param.name,
              value,
              error: '',
              message: '',
            });
            checked++;
          }
          // The sandbox names the values it takes when refusing another one: exactly the catalogue's.
          const refused = await call(provider, endpoint.path, {
            ...build!(param.name, 'NOT_A_VALUE'),
            [param.name]: 'NOT_A_VALUE',
          });
          expect(refused.error).toBe('error_param');
          const listed = /^\S+ must be (?:one of|among) (.*)\.$/.exec(refused.message)?.[1]?.split(', ');
          expect({ param: param.name, values: [...(listed ?? [])].sort() }).toEqual({
            param: param.name,
            values: [...param.values!].sort(),
          });
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  }, 60_000);
});
