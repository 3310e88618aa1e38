import { createHmac } from 'node:crypto';
import type { Harness } from '../testing/sandbox.harness';
import { LUMEN, mintShopGrant, NORTHWIND, startShopSandbox, type MintedGrant } from './testing/shop.harness';

interface Envelope<T> {
  code: number;
  message: string;
  request_id: string;
  data: T;
}

interface Order {
  id: string;
  status: string;
  create_time: number;
  update_time: number;
  paid_time?: number;
  payment: Record<string, string>;
  line_items: Record<string, string>[];
  buyer_email: string;
  user_id: string;
}

interface Product {
  id: string;
  title: string;
  status: string;
  skus: {
    id: string;
    seller_sku: string;
    price: { currency: string; sale_price: string };
    inventory: { warehouse_id: string; quantity: number }[];
  }[];
  create_time: number;
  update_time: number;
}

const BEYOND_SAFE_INTEGER = BigInt(Number.MAX_SAFE_INTEGER);

describe('video-shop read endpoints', () => {
  let h: Harness;
  let grant: MintedGrant;
  let cipher: string;

  beforeAll(async () => {
    h = await startShopSandbox();
    grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    cipher = grant.shops[0]?.cipher as string;
  });
  afterAll(() => h.close());

  /**
   * A request signed exactly as the platform documents it for clients: every query parameter but sign and
   * access_token, sorted by key, key+value concatenated after the path, the JSON body appended, wrapped in
   * the secret, HMAC-SHA256 keyed with the secret, lowercase hex.
   */
  async function signed<T>(
    method: string,
    path: string,
    query: Record<string, string>,
    body?: object,
    token = grant.access_token,
  ): Promise<{ status: number; json: Envelope<T> }> {
    const secret = h.config.SANDBOX_VIDEO_SHOP_APP_SECRET;
    const params: Record<string, string> = {
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      timestamp: String(Math.floor(h.clock.now() / 1000)),
      ...query,
    };
    const payload = body === undefined ? '' : JSON.stringify(body);
    const keys = Object.keys(params).sort();
    const plain = `${secret}${path}${keys.map((key) => key + params[key]).join('')}${payload}${secret}`;
    params.sign = createHmac('sha256', secret).update(plain).digest('hex');
    const response = await fetch(`${h.url}/video-shop${path}?${new URLSearchParams(params).toString()}`, {
      method,
      headers: {
        'x-tts-access-token': token,
        ...(payload === '' ? {} : { 'Content-Type': 'application/json' }),
      },
      body: payload === '' ? undefined : payload,
    });
    return { status: response.status, json: (await response.json()) as Envelope<T> };
  }

  it('answers in the platform envelope with HTTP 200, message Success and a 14-digit-stamped request_id', async () => {
    const { status, json } = await signed<{ shops: unknown[] }>('GET', '/authorization/202309/shops', {});
    expect(status).toBe(200);
    expect(Object.keys(json)).toEqual(['code', 'message', 'request_id', 'data']);
    expect(json).toMatchObject({ code: 0, message: 'Success' });
    expect(json.request_id).toMatch(/^20261101120000[0-9A-F]{18}$/);
  });

  it('lists the authorized shops with their ciphers, and the seller shops', async () => {
    const authorized = await signed<{ shops: Record<string, string>[] }>('GET', '/authorization/202309/shops', {});
    expect(authorized.json.data.shops).toEqual([
      {
        id: '7495001834820044801',
        name: 'Northwind Goods US',
        region: 'US',
        seller_type: 'LOCAL',
        cipher: NORTHWIND.shops[0]?.cipher,
        code: 'USLCN7W2QK',
      },
      expect.objectContaining({ id: '7495001834820044802', region: 'GB', cipher: NORTHWIND.shops[1]?.cipher }),
    ]);
    const seller = await signed<{ shops: Record<string, string>[] }>('GET', '/seller/202309/shops', {});
    expect(seller.json.data.shops.map((shop) => shop.id)).toEqual(NORTHWIND.shops.map((shop) => shop.id));
  });

  it('pages orders/search to its last page with a body filter, sorted, with tokens that need encoding', async () => {
    const filter = { order_status: 'COMPLETED', create_time_ge: Math.floor(h.clock.now() / 1000) - 60 * 86_400 };
    const seen: Order[] = [];
    const tokens: string[] = [];
    let pageToken = '';
    let total = -1;
    for (let page = 0; page < 50; page++) {
      const query = { shop_cipher: cipher, page_size: '20', sort_field: 'create_time', sort_order: 'ASC' };
      const { status, json } = await signed<{ orders: Order[]; next_page_token: string; total_count: number }>(
        'POST',
        '/order/202309/orders/search',
        pageToken === '' ? query : { ...query, page_token: pageToken },
        filter,
      );
      expect(status).toBe(200);
      expect(json.code).toBe(0);
      seen.push(...json.data.orders);
      total = json.data.total_count;
      pageToken = json.data.next_page_token;
      if (pageToken === '') break;
      tokens.push(pageToken);
    }
    expect(pageToken).toBe('');
    expect(seen.length).toBe(total);
    expect(total).toBeGreaterThan(50);
    expect(new Set(seen.map((order) => order.id)).size).toBe(seen.length);
    expect(seen.every((order) => order.status === 'COMPLETED' && order.create_time >= filter.create_time_ge)).toBe(
      true,
    );
    const times = seen.map((order) => order.create_time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(tokens.some((token) => /[+/]/.test(token))).toBe(true);
    expect(tokens.every((token) => token.endsWith('='))).toBe(true);
  });

  it('describes orders with string ids beyond 2^53, money strings, unix times and per-unit line items', async () => {
    const { json } = await signed<{ orders: Order[]; total_count: number }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: cipher, page_size: '100' },
      {},
    );
    expect(json.data.total_count).toBeGreaterThanOrEqual(200);
    const order = json.data.orders[0] as Order;
    expect(order.id).toMatch(/^\d{19}$/);
    expect(BigInt(order.id)).toBeGreaterThan(BEYOND_SAFE_INTEGER);
    expect(order.user_id).toMatch(/^\d{19}$/);
    expect(order.payment).toEqual({
      currency: 'USD',
      sub_total: expect.stringMatching(/^\d+\.\d{2}$/),
      total_amount: expect.stringMatching(/^\d+\.\d{2}$/),
      shipping_fee: expect.stringMatching(/^\d+\.\d{2}$/),
      tax: expect.stringMatching(/^\d+\.\d{2}$/),
    });
    const item = order.line_items[0] as Record<string, string>;
    expect(Object.keys(item).sort()).toEqual(
      ['currency', 'id', 'original_price', 'product_id', 'product_name', 'sale_price', 'seller_sku', 'sku_id'].sort(),
    );
    expect(order.buyer_email).toContain('@');
    // Newest first by default, all within the last ~90 days of the sandbox clock.
    const now = Math.floor(h.clock.now() / 1000);
    expect(order.create_time).toBeLessThanOrEqual(now);
    const oldest = json.data.orders.at(-1) as Order;
    expect(oldest.create_time).toBeLessThanOrEqual(order.create_time);
    expect(order.create_time).toBeGreaterThan(now - 91 * 86_400);
  });

  it('filters orders by buyer, shipping type and update time', async () => {
    const all = await signed<{ orders: Order[] }>('POST', '/order/202309/orders/search', {
      shop_cipher: cipher,
      page_size: '100',
    });
    const buyer = (all.json.data.orders[0] as Order).user_id;
    const byBuyer = await signed<{ orders: Order[]; total_count: number }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: cipher, page_size: '100' },
      { buyer_user_id: buyer },
    );
    expect(byBuyer.json.data.total_count).toBeGreaterThanOrEqual(1);
    expect(byBuyer.json.data.orders.every((order) => order.user_id === buyer)).toBe(true);

    const seller = await signed<{ total_count: number }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: cipher, page_size: '1' },
      { shipping_type: 'SELLER' },
    );
    const tiktok = await signed<{ total_count: number }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: cipher, page_size: '1' },
      { shipping_type: 'TIKTOK' },
    );
    const everything = await signed<{ total_count: number }>('POST', '/order/202309/orders/search', {
      shop_cipher: cipher,
      page_size: '1',
    });
    expect(seller.json.data.total_count + tiktok.json.data.total_count).toBe(everything.json.data.total_count);

    const since = Math.floor(h.clock.now() / 1000) - 5 * 86_400;
    const recent = await signed<{ orders: Order[] }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: cipher, page_size: '100', sort_field: 'update_time' },
      { update_time_ge: since },
    );
    expect(recent.json.data.orders.length).toBeGreaterThan(0);
    expect(recent.json.data.orders.every((order) => order.update_time >= since)).toBe(true);
    const updates = recent.json.data.orders.map((order) => order.update_time);
    expect(updates).toEqual([...updates].sort((a, b) => b - a));
  });

  it('gets orders by comma-joined ids and leaves out ids of other shops', async () => {
    const page = await signed<{ orders: Order[] }>('POST', '/order/202309/orders/search', {
      shop_cipher: cipher,
      page_size: '3',
    });
    const ids = page.json.data.orders.map((order) => order.id);
    const { json } = await signed<{ orders: Order[] }>('GET', '/order/202309/orders', {
      shop_cipher: cipher,
      ids: [...ids, '5799999999999999999'].join(','),
    });
    expect(json.code).toBe(0);
    expect(json.data.orders).toEqual(page.json.data.orders);
  });

  it('searches products on both versions, with low-stock SKUs and working filters', async () => {
    for (const version of ['202309', '202502']) {
      const { json } = await signed<{ products: Product[]; next_page_token: string; total_count: number }>(
        'POST',
        `/product/${version}/products/search`,
        { shop_cipher: cipher, page_size: '100' },
        {},
      );
      expect(json.code).toBe(0);
      expect(json.data.total_count).toBeGreaterThanOrEqual(20);
      expect(json.data.next_page_token).toBe('');
      const skus = json.data.products.flatMap((product) => product.skus);
      expect(skus.some((sku) => sku.inventory.some((stock) => stock.quantity < 5))).toBe(true);
      expect(skus[0]?.price).toEqual({ currency: 'USD', sale_price: expect.stringMatching(/^\d+\.\d{2}$/) });
      expect(BigInt(json.data.products[0]?.id ?? '0')).toBeGreaterThan(BEYOND_SAFE_INTEGER);
    }
    const active = await signed<{ products: Product[]; total_count: number }>(
      'POST',
      '/product/202309/products/search',
      { shop_cipher: cipher, page_size: '100' },
      { status: 'ACTIVATE' },
    );
    expect(active.json.data.products.every((product) => product.status === 'ACTIVATE')).toBe(true);
    const sku = active.json.data.products[0]?.skus[0]?.seller_sku as string;
    const bySku = await signed<{ products: Product[] }>(
      'POST',
      '/product/202309/products/search',
      { shop_cipher: cipher, page_size: '10' },
      { seller_skus: [sku] },
    );
    expect(bySku.json.data.products).toHaveLength(1);
    expect(bySku.json.data.products[0]?.skus.map((item) => item.seller_sku)).toContain(sku);
  });

  it('pages products with a small page size', async () => {
    const ids: string[] = [];
    let pageToken = '';
    do {
      const { json } = await signed<{ products: Product[]; next_page_token: string; total_count: number }>(
        'POST',
        '/product/202309/products/search',
        { shop_cipher: cipher, page_size: '7', ...(pageToken ? { page_token: pageToken } : {}) },
      );
      expect(json.code).toBe(0);
      ids.push(...json.data.products.map((product) => product.id));
      pageToken = json.data.next_page_token;
      if (pageToken === '') expect(ids).toHaveLength(json.data.total_count);
    } while (pageToken !== '');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists statements with amounts, statuses and filters', async () => {
    const { json } = await signed<{ statements: Record<string, string | number>[]; next_page_token: string }>(
      'GET',
      '/finance/202309/statements',
      { shop_cipher: cipher, sort_field: 'statement_time', sort_order: 'DESC', page_size: '5' },
    );
    expect(json.code).toBe(0);
    expect(json.data.statements).toHaveLength(5);
    expect(json.data.next_page_token).not.toBe('');
    const first = json.data.statements[0] as Record<string, string | number>;
    expect(first).toMatchObject({
      id: expect.stringMatching(/^\d{19}$/),
      currency: 'USD',
      payment_status: 'PROCESSING',
      settlement_amount: expect.stringMatching(/^-?\d+\.\d{2}$/),
      revenue_amount: expect.stringMatching(/^\d+\.\d{2}$/),
      fee_amount: expect.stringMatching(/^-\d+\.\d{2}$/),
    });
    expect(Number(first.revenue_amount) + Number(first.fee_amount)).toBeCloseTo(Number(first.settlement_amount), 2);
    const paid = await signed<{ statements: { payment_status: string }[] }>('GET', '/finance/202309/statements', {
      shop_cipher: cipher,
      sort_field: 'statement_time',
      payment_status: 'PAID',
      page_size: '100',
    });
    expect(paid.json.data.statements.length).toBeGreaterThan(5);
    expect(paid.json.data.statements.every((statement) => statement.payment_status === 'PAID')).toBe(true);
  });

  it('reports shop performance per day and in total, in local currency or USD, matching the orders', async () => {
    const uk = grant.shops[1]?.cipher as string;
    const query = { shop_cipher: uk, start_date_ge: '2026-10-01', end_date_lt: '2026-10-08' };
    type Perf = {
      performance: {
        intervals: {
          start_date: string;
          end_date: string;
          gmv: { amount: string; currency: string };
          orders: number;
          units_sold: number;
          buyers: number;
        }[];
      };
    };
    const daily = await signed<Perf>('GET', '/analytics/202405/shop/performance', { ...query, granularity: '1D' });
    expect(daily.json.code).toBe(0);
    const days = daily.json.data.performance.intervals;
    expect(days.map((day) => day.start_date)).toEqual([
      '2026-10-01',
      '2026-10-02',
      '2026-10-03',
      '2026-10-04',
      '2026-10-05',
      '2026-10-06',
      '2026-10-07',
    ]);
    expect(days[0]?.end_date).toBe('2026-10-02');
    expect(days[0]?.gmv.currency).toBe('GBP');

    const total = await signed<Perf>('GET', '/analytics/202405/shop/performance', query);
    const [all] = total.json.data.performance.intervals;
    expect(all).toMatchObject({ start_date: '2026-10-01', end_date: '2026-10-08' });
    expect(all?.orders).toBe(days.reduce((sum, day) => sum + day.orders, 0));
    expect(all?.orders).toBeGreaterThan(0);
    expect(all?.units_sold).toBeGreaterThanOrEqual(all?.orders ?? 0);
    const sum = days.reduce((acc, day) => acc + Math.round(Number(day.gmv.amount) * 100), 0);
    expect(Math.round(Number(all?.gmv.amount) * 100)).toBe(sum);

    const usd = await signed<Perf>('GET', '/analytics/202405/shop/performance', { ...query, currency: 'USD' });
    const inUsd = usd.json.data.performance.intervals[0];
    expect(inUsd?.gmv.currency).toBe('USD');
    expect(Number(inUsd?.gmv.amount)).toBeGreaterThan(Number(all?.gmv.amount));
  });

  it('gives every shop its own stable data', async () => {
    const search = () =>
      signed<{ orders: Order[] }>('POST', '/order/202309/orders/search', { shop_cipher: cipher, page_size: '5' });
    const first = await search();
    const again = await search();
    expect(again.json.data.orders).toEqual(first.json.data.orders);

    const lumen = await mintShopGrant(h, { open_id: LUMEN.open_id });
    const other = await signed<{ orders: Order[] }>(
      'POST',
      '/order/202309/orders/search',
      { shop_cipher: lumen.shops[2]?.cipher as string, page_size: '5' },
      undefined,
      lumen.access_token,
    );
    expect(other.json.code).toBe(0);
    expect(other.json.data.orders[0]?.payment.currency).toBe('MYR');
    expect(other.json.data.orders[0]?.id).not.toBe(first.json.data.orders[0]?.id);
  });
});
