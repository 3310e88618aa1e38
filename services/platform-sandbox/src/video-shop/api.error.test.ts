import type { Harness } from '../testing/sandbox.harness';
import { encodePageToken } from './data/page-token';
import { ShopWorld } from './data/shop-data.generator';
import { LUMEN, mintShopGrant, NORTHWIND, shopCall, startShopSandbox, type MintedGrant } from './testing/shop.harness';

const SEARCH = '/order/202309/orders/search';

describe('video-shop authentication and routing errors', () => {
  let h: Harness;
  let grant: MintedGrant;
  let cipher: string;

  beforeAll(async () => {
    h = await startShopSandbox();
    grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    cipher = grant.shops[0]?.cipher as string;
  });
  afterAll(() => h.close());

  const search = (options: Parameters<typeof shopCall>[3] = {}) =>
    shopCall(h, 'POST', SEARCH, {
      token: grant.access_token,
      shopCipher: cipher,
      query: { page_size: '10' },
      ...options,
    });

  it('answers a wrong sign with 106001 and HTTP 401', async () => {
    const { status, body } = await search({ sign: 'a'.repeat(64) });
    expect(status).toBe(401);
    expect(body).toEqual({
      code: 106001,
      message: "Invalid credentials. The 'sign' query parameter is invalid.",
      request_id: expect.stringMatching(/^\d{14}[0-9A-F]{18}$/),
      data: null,
    });
    expect((await search({ secret: 'not-the-app-secret' })).body.code).toBe(106001);
  });

  it('answers a missing sign with 106001', async () => {
    const url = `${h.url}/video-shop/authorization/202309/shops?app_key=${h.config.SANDBOX_VIDEO_SHOP_APP_KEY}&timestamp=${Math.floor(h.clock.ms / 1000)}`;
    const response = await fetch(url, { headers: { 'x-tts-access-token': grant.access_token } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: number }).code).toBe(106001);
  });

  it('answers a timestamp more than 30 seconds off with 36009004 and HTTP 401, either way', async () => {
    const now = Math.floor(h.clock.ms / 1000);
    for (const timestamp of [now - 31, now + 31, now - 3600]) {
      const { status, body } = await search({ timestamp });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 36009004, data: null });
    }
    for (const timestamp of [now - 30, now + 30]) expect((await search({ timestamp })).body.code).toBe(0);
  });

  it('answers an unknown app_key with 36009004 and HTTP 401', async () => {
    const { status, body } = await search({ query: { page_size: '10', app_key: 'someoneelse1' } });
    expect(status).toBe(401);
    expect(body.code).toBe(36009004);
  });

  it('answers a missing, unknown or Bearer-prefixed access token with 36009004 and HTTP 401', async () => {
    for (const token of [undefined, 'not-a-token', `Bearer ${grant.access_token}`]) {
      const { status, body } = await search({ token });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 36009004, data: null });
    }
  });

  it('does not take the access token from the query instead of the header', async () => {
    const { status } = await search({ token: undefined, query: { page_size: '10', access_token: grant.access_token } });
    expect(status).toBe(401);
  });

  it('refuses a shop_cipher on /authorization and /seller paths with 36009004 and HTTP 400', async () => {
    for (const path of ['/authorization/202309/shops', '/seller/202309/shops']) {
      const { status, body } = await shopCall(h, 'GET', path, { token: grant.access_token, shopCipher: cipher });
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 36009004, data: null });
    }
  });

  it('answers a missing shop_cipher on a shop path with 106013 and HTTP 400', async () => {
    const { status, body } = await search({ shopCipher: undefined });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 106013, data: null });
  });

  it("answers another seller's or a made-up cipher with 36009004 and HTTP 400", async () => {
    for (const other of [LUMEN.shops[0]?.cipher as string, 'ROW_made-up']) {
      const { status, body } = await search({ shopCipher: other });
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 36009004, message: expect.stringContaining('invalid shop_cipher') });
    }
  });

  it('answers a call outside the granted scopes with 105005 and HTTP 403', async () => {
    const narrow = await mintShopGrant(h, {
      open_id: NORTHWIND.open_id,
      scopes: ['seller.authorization.info', 'seller.order.info'],
    });
    expect((await search({ token: narrow.access_token })).body.code).toBe(0);
    const { status, body } = await shopCall(h, 'GET', '/finance/202309/statements', {
      token: narrow.access_token,
      shopCipher: cipher,
      query: { sort_field: 'statement_time' },
    });
    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 105005, data: null });
  });

  it('answers an unknown path with HTTP 404 and a wrong method with HTTP 405, both in the envelope', async () => {
    const missing = await shopCall(h, 'GET', '/order/202309/nothing', { token: grant.access_token });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 36009404, data: null });
    const wrongMethod = await shopCall(h, 'GET', SEARCH, { token: grant.access_token, shopCipher: cipher });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ code: 36009405, data: null });
    const nonNumeric = await shopCall(h, 'POST', '/order/202309/orders/abc/cancel', { token: grant.access_token });
    expect(nonNumeric.status).toBe(404);
  });

  it('checks the signature before the token, so an unsigned probe learns nothing about a token', async () => {
    const { body } = await search({ token: 'not-a-token', sign: '0'.repeat(64) });
    expect(body.code).toBe(106001);
  });
});

describe('video-shop parameter errors', () => {
  let h: Harness;
  let grant: MintedGrant;
  let cipher: string;

  beforeAll(async () => {
    h = await startShopSandbox();
    grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    cipher = grant.shops[0]?.cipher as string;
  });
  afterAll(() => h.close());

  const call = (method: string, path: string, query: Record<string, string>, body?: unknown) =>
    shopCall(h, method, path, { token: grant.access_token, shopCipher: cipher, query, body });

  it.each([
    ['a missing page_size', {}, undefined],
    ['page_size 0', { page_size: '0' }, undefined],
    ['page_size 101', { page_size: '101' }, undefined],
    ['an unknown sort_field', { page_size: '10', sort_field: 'total' }, undefined],
    ['an unknown order_status', { page_size: '10' }, { order_status: 'SHIPPED' }],
    ['a create_time_ge given as a string', { page_size: '10' }, { create_time_ge: '1700000000' }],
    ['a made-up page_token', { page_size: '10', page_token: 'AQAAABQAAAAAAAAAAAAAAA==' }, undefined],
    ['a body that is not JSON', { page_size: '10' }, '{"order_status":'],
  ])('answers orders/search with %s with 36009001 and HTTP 400', async (_case, query, body) => {
    const { status, body: json } = await call('POST', SEARCH, query, body);
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 36009001, message: expect.stringMatching(/^Invalid params: /), data: null });
  });

  it('refuses a page token of another query', async () => {
    const first = await call('POST', SEARCH, { page_size: '5' }, { order_status: 'COMPLETED' });
    const token = (first.body.data as { next_page_token: string }).next_page_token;
    expect(token).not.toBe('');
    const replayed = await call('POST', SEARCH, { page_size: '5', page_token: token }, { order_status: 'CANCELLED' });
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe(36009001);
  });

  it('refuses a body sent without the JSON content type', async () => {
    const { status, body } = await shopCall(h, 'POST', SEARCH, {
      token: grant.access_token,
      shopCipher: cipher,
      query: { page_size: '10' },
      body: '{}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(status).toBe(400);
    expect(body.code).toBe(36009001);
  });

  it('refuses a query parameter given twice', async () => {
    const now = Math.floor(h.clock.ms / 1000);
    const url = `${h.url}/video-shop/authorization/202309/shops?app_key=a&app_key=b&timestamp=${now}&sign=${'0'.repeat(64)}`;
    const response = await fetch(url, { headers: { 'x-tts-access-token': grant.access_token } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: number }).code).toBe(36009001);
  });

  it('validates the ids of orders get', async () => {
    for (const ids of ['', 'abc', Array.from({ length: 51 }, (_, i) => String(5_700_000 + i)).join(',')]) {
      const { status, body } = await call('GET', '/order/202309/orders', ids === '' ? {} : { ids });
      expect(status).toBe(400);
      expect(body.code).toBe(36009001);
    }
  });

  it('needs sort_field on statements', async () => {
    const { status, body } = await call('GET', '/finance/202309/statements', {});
    expect(status).toBe(400);
    expect(body.message).toContain('sort_field');
  });

  it.each([
    ['a missing start date', { end_date_lt: '2026-10-02' }],
    ['a date that does not exist', { start_date_ge: '2026-02-30', end_date_lt: '2026-03-02' }],
    ['a date in another format', { start_date_ge: '2026/10/01', end_date_lt: '2026-10-02' }],
    ['an end before the start', { start_date_ge: '2026-10-02', end_date_lt: '2026-10-01' }],
    ['an unknown granularity', { start_date_ge: '2026-10-01', end_date_lt: '2026-10-02', granularity: '1H' }],
    ['a span over a year', { start_date_ge: '2025-01-01', end_date_lt: '2026-10-02' }],
  ])('answers shop performance with %s with 36009001', async (_case, query) => {
    const { status, body } = await call('GET', '/analytics/202405/shop/performance', query);
    expect(status).toBe(400);
    expect(body.code).toBe(36009001);
  });

  it('answers 12052180 when product paging goes past the first 10,000 results', async () => {
    const fingerprint = JSON.stringify([
      'products',
      grant.shops[0]?.id,
      {
        status: 'ALL',
        seller_skus: undefined,
        create_time_ge: undefined,
        create_time_le: undefined,
        update_time_ge: undefined,
        update_time_le: undefined,
      },
    ]);
    // Hand-made: the shop has fewer products, so this can only be a token beyond the search window.
    const token = encodePageToken(10_000, fingerprint);
    const { status, body } = await call('POST', '/product/202309/products/search', {
      page_size: '10',
      page_token: token,
    });
    expect(status).toBe(400);
    expect(body.code).toBe(12052180);
  });
});

describe('video-shop handler failures', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers 36009003 with HTTP 500 when a handler throws', async () => {
    const h = await startShopSandbox();
    try {
      const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
      jest.spyOn(ShopWorld.prototype, 'shop').mockImplementation(() => {
        throw new Error('boom');
      });
      const { status, body } = await shopCall(h, 'GET', '/order/202309/orders', {
        token: grant.access_token,
        shopCipher: grant.shops[0]?.cipher,
        query: { ids: '5701000000000000001' },
      });
      expect(status).toBe(500);
      expect(body).toMatchObject({ code: 36009003, data: null });
    } finally {
      await h.close();
    }
  });
});
