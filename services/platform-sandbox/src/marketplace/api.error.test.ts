import type { Harness } from '../testing/sandbox.harness';
import {
  isoDay,
  marketCall,
  mintMarketGrant,
  SG_SHOP,
  startMarketSandbox,
  TH_SHOP,
  type MintedMarketGrant,
} from './testing/marketplace.harness';

const DAY_S = 86_400;

describe('marketplace error answers', () => {
  let h: Harness;
  let seller: MintedMarketGrant;
  let ads: MintedMarketGrant;
  let affiliate: MintedMarketGrant;

  beforeAll(async () => {
    h = await startMarketSandbox();
    seller = await mintMarketGrant(h, 'seller', SG_SHOP);
    ads = await mintMarketGrant(h, 'ads', SG_SHOP);
    affiliate = await mintMarketGrant(h, 'affiliate', SG_SHOP);
  });
  afterAll(() => h.close());

  const shopInfo = (options: Parameters<typeof marketCall>[4] = {}) =>
    marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', { grant: seller, ...options });

  it('answers a wrong sign with error_sign and HTTP 200', async () => {
    const { status, body } = await shopInfo({ sign: 'ab'.repeat(32) });
    expect(status).toBe(200);
    expect(body).toMatchObject({ error: 'error_sign', message: 'Wrong sign.' });
    expect(body.request_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers a timestamp more than 5 minutes old or ahead with error_param "Timestamp is expired."', async () => {
    const now = Math.floor(h.clock.ms / 1000);
    for (const timestamp of [now - 301, now + 301]) {
      const { status, body } = await shopInfo({ timestamp });
      expect(status).toBe(200);
      expect(body).toMatchObject({ error: 'error_param', message: 'Timestamp is expired.' });
    }
    expect((await shopInfo({ timestamp: now - 299 })).body.error).toBe('');
  });

  it('answers a shop call without shop_id with error_param "There is no shop_id in query."', async () => {
    const { body } = await shopInfo({ omit: ['shop_id'] });
    expect(body).toMatchObject({ error: 'error_param', message: 'There is no shop_id in query.' });
  });

  it('answers an unknown partner_id with error_param', async () => {
    const response = await fetch(`${h.url}/marketplace/api/v2/shop/get_shop_info?partner_id=999&timestamp=1&sign=x`);
    expect(await response.json()).toMatchObject({ error: 'error_param', message: 'Invalid partner_id.' });
  });

  it('answers a call outside the app type with error_api_permission', async () => {
    const cases: [Parameters<typeof marketCall>[1], string, MintedMarketGrant][] = [
      ['ads', '/api/v2/shop/get_shop_info', ads],
      ['affiliate', '/api/v2/order/get_order_list', affiliate],
      ['seller', '/api/v2/ads/get_total_balance', seller],
      ['affiliate', '/api/v2/ads/get_total_balance', affiliate],
      ['seller', '/api/v2/ams/get_performance_data_update_time', seller],
      ['ads', '/api/v2/ams/get_conversion_report', ads],
    ];
    for (const [app, path, grant] of cases) {
      const { status, body } = await marketCall(h, app, 'GET', path, { grant });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        error: 'error_api_permission',
        message: 'This app type has no permission to this API.',
      });
    }
  });

  it("refuses one app's token presented by another app, and a token of another shop", async () => {
    const crossed = await marketCall(h, 'ads', 'GET', '/api/v2/ads/get_total_balance', { grant: { ...seller } });
    expect(crossed.body).toMatchObject({ error: 'error_auth', message: 'Invalid access_token.' });
    const otherShop = await shopInfo({ grant: { access_token: seller.access_token, shop_id: TH_SHOP.shop_id } });
    expect(otherShop.body).toMatchObject({ error: 'error_auth', message: 'Invalid access_token.' });
  });

  it('answers an unknown path with HTTP 404 and error_not_found in the envelope', async () => {
    const { status, body } = await marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_nothing', { grant: seller });
    expect(status).toBe(404);
    expect(body.error).toBe('error_not_found');
    expect(body.request_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses ads dates that are not DD-MM-YYYY, or span more than a month', async () => {
    const good = isoDay(h.clock.ms, -2);
    for (const start of [good.yyyymmdd, new Date(good.day * 86_400_000).toISOString().slice(0, 10), '31-02-2026']) {
      const { body } = await marketCall(h, 'ads', 'GET', '/api/v2/ads/get_all_cpc_ads_daily_performance', {
        grant: ads,
        query: { start_date: start, end_date: good.ddmmyyyy },
      });
      expect(body.error).toBe('error_param');
      expect(body.message).toContain('DD-MM-YYYY');
    }
    const long = await marketCall(h, 'ads', 'GET', '/api/v2/ads/get_all_cpc_ads_daily_performance', {
      grant: ads,
      query: { start_date: isoDay(h.clock.ms, -40).ddmmyyyy, end_date: good.ddmmyyyy },
    });
    expect(long.body.error).toBe('error_param');
  });

  it('refuses AMS performance dates that are not YYYYMMDD', async () => {
    const end = isoDay(h.clock.ms, -1);
    const { body } = await marketCall(h, 'affiliate', 'GET', '/api/v2/ams/get_shop_performance', {
      grant: affiliate,
      query: {
        period_type: 'Day',
        start_date: end.ddmmyyyy,
        end_date: end.ddmmyyyy,
        order_type: 'PlacedOrder',
        channel: 'AllChannel',
      },
    });
    expect(body.error).toBe('error_param');
    expect(body.message).toContain('YYYYMMDD');
  });

  it('refuses a marker_type other than AmsMarker', async () => {
    const { body } = await marketCall(h, 'affiliate', 'GET', '/api/v2/ams/get_performance_data_update_time', {
      grant: affiliate,
      query: { marker_type: 'Other' },
    });
    expect(body.error).toBe('error_param');
  });

  it('refuses an order list window longer than 15 days and a page_size above 100', async () => {
    const now = Math.floor(h.clock.ms / 1000);
    const call = (query: Record<string, string | number>) =>
      marketCall(h, 'seller', 'GET', '/api/v2/order/get_order_list', {
        grant: seller,
        query: { time_range_field: 'create_time', time_from: now - 10 * DAY_S, time_to: now, page_size: 10, ...query },
      });
    expect((await call({ time_from: now - 16 * DAY_S })).body.error).toBe('error_param');
    expect((await call({ page_size: 101 })).body.error).toBe('error_param');
    expect((await call({ time_range_field: 'pay_time' })).body.error).toBe('error_param');
    expect((await call({})).body.error).toBe('');
  });

  it('refuses a conversion report page beyond 10,000 rows and a span above 3 months', async () => {
    const now = Math.floor(h.clock.ms / 1000);
    const call = (query: Record<string, number>) =>
      marketCall(h, 'affiliate', 'GET', '/api/v2/ams/get_conversion_report', {
        grant: affiliate,
        query: { place_order_time_start: now - DAY_S, place_order_time_end: now, page_no: 1, page_size: 100, ...query },
      });
    expect((await call({ page_no: 101 })).body.error).toBe('error_param');
    expect((await call({ page_size: 501 })).body.error).toBe('error_param');
    expect((await call({ place_order_time_start: now - 100 * DAY_S })).body.error).toBe('error_param');
    expect((await call({ page_no: 100 })).body.error).toBe('');
  });

  it('refuses more than 50 order_sn values', async () => {
    const sns = Array.from({ length: 51 }, (_unused, index) => `2611${String(index).padStart(10, '0')}`);
    const { body } = await marketCall(h, 'seller', 'GET', '/api/v2/order/get_order_detail', {
      grant: seller,
      query: { order_sn_list: sns },
    });
    expect(body.error).toBe('error_param');
  });
});

describe('marketplace app QPS', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startMarketSandbox({ SANDBOX_MARKETPLACE_APP_QPS: '3' });
  });
  afterAll(() => h.close());

  it('answers error_rate_limit past the per-app limit within one second, and admits again after it', async () => {
    const grant = await mintMarketGrant(h, 'seller', SG_SHOP);
    const ads = await mintMarketGrant(h, 'ads', SG_SHOP);
    const call = () => marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', { grant });
    for (let i = 0; i < 3; i++) expect((await call()).body.error).toBe('');
    const limited = await call();
    expect(limited.status).toBe(200);
    expect(limited.body.error).toBe('error_rate_limit');
    const otherApp = await marketCall(h, 'ads', 'GET', '/api/v2/ads/get_total_balance', { grant: ads });
    expect(otherApp.body.error).toBe('');
    h.clock.advance(1000);
    expect((await call()).body.error).toBe('');
  });
});
