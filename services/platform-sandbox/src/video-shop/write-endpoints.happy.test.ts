import type { LoggedRequest } from '../control/request-log';
import type { Harness } from '../testing/sandbox.harness';
import { mintShopGrant, NORTHWIND, shopCall, startShopSandbox, type MintedGrant } from './testing/shop.harness';

const WRITES: [method: string, path: string, body: object | undefined][] = [
  ['POST', '/order/202309/orders/5701000000000012345/cancel', { cancel_reason: 'seller_out_of_stock' }],
  ['POST', '/product/202309/products', { title: 'New Lamp', skus: [{ seller_sku: 'NEW-1' }] }],
  ['PUT', '/product/202309/products/1701000000000000001', { title: 'Renamed Lamp' }],
  ['POST', '/product/202309/products/activate', { product_ids: ['1701000000000000001'] }],
  ['POST', '/event/202309/webhooks', { address: 'https://hooks.example.com/tts', event_type: 'ORDER_STATUS_CHANGE' }],
  ['POST', '/fulfillment/202309/packages/1152000000000000001/ship', { handover_method: 'PICKUP' }],
  ['POST', '/return_refund/202309/returns/4035000000000000001/approve', undefined],
];

describe('video-shop write endpoints', () => {
  let h: Harness;
  let grant: MintedGrant;
  let cipher: string;

  beforeAll(async () => {
    h = await startShopSandbox();
    grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    cipher = grant.shops[0]?.cipher as string;
  });
  afterAll(() => h.close());

  async function log(since: number): Promise<{ requests: LoggedRequest[]; last_seq: number }> {
    const response = await fetch(`${h.url}/_sandbox/requests?since=${since}&path_prefix=/video-shop/`);
    return (await response.json()) as { requests: LoggedRequest[]; last_seq: number };
  }

  it.each(WRITES)('succeeds on %s %s', async (method, path, body) => {
    const { status, body: json } = await shopCall(h, method, path, {
      token: grant.access_token,
      shopCipher: cipher,
      body,
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ code: 0, message: 'Success' });
    expect(json.data).not.toBeNull();
  });

  it('records every write in the request log with path, query, token header and body', async () => {
    const start = (await log(0)).last_seq;
    for (const [method, path, body] of WRITES) {
      await shopCall(h, method, path, { token: grant.access_token, shopCipher: cipher, body });
    }
    const { requests } = await log(start);
    expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
      WRITES.map(([method, path]) => `${method} /video-shop${path}`),
    );
    const [cancel] = requests as [LoggedRequest];
    expect(cancel.headers['x-tts-access-token']).toBe(grant.access_token);
    expect(new URLSearchParams(cancel.query).get('shop_cipher')).toBe(cipher);
    expect(new URLSearchParams(cancel.query).get('sign')).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(cancel.body ?? '')).toEqual({ cancel_reason: 'seller_out_of_stock' });
  });

  it('records refused requests and the auth host too', async () => {
    const start = ((await fetch(`${h.url}/_sandbox/requests?since=0`).then((r) => r.json())) as { last_seq: number })
      .last_seq;
    await shopCall(h, 'POST', '/product/202309/products', {
      token: 'stolen',
      shopCipher: cipher,
      body: { title: 'x' },
    });
    await fetch(`${h.url}/video-shop-auth/api/v2/token/get?app_key=x`);
    const all = (await (await fetch(`${h.url}/_sandbox/requests?since=${start}`)).json()) as {
      requests: LoggedRequest[];
    };
    expect(all.requests.map((entry) => entry.path)).toEqual([
      '/video-shop/product/202309/products',
      '/video-shop-auth/api/v2/token/get',
    ]);
  });

  it('still checks the signature, the token, the cipher and the body of a write', async () => {
    const path = '/product/202309/products';
    const body = { title: 'x' };
    expect(
      (await shopCall(h, 'POST', path, { token: grant.access_token, shopCipher: cipher, body, sign: '0'.repeat(64) }))
        .status,
    ).toBe(401);
    expect((await shopCall(h, 'POST', path, { token: 'nope', shopCipher: cipher, body })).body.code).toBe(36009004);
    expect((await shopCall(h, 'POST', path, { token: grant.access_token, body })).body.code).toBe(106013);
    const missingTitle = await shopCall(h, 'POST', path, { token: grant.access_token, shopCipher: cipher, body: {} });
    expect(missingTitle.status).toBe(400);
    expect(missingTitle.body.code).toBe(36009001);
    const narrow = await mintShopGrant(h, { open_id: NORTHWIND.open_id, scopes: ['seller.product.basic'] });
    expect((await shopCall(h, 'POST', path, { token: narrow.access_token, shopCipher: cipher, body })).status).toBe(
      403,
    );
  });

  it('changes nothing that the read paths show', async () => {
    const read = () =>
      shopCall(h, 'POST', '/product/202309/products/search', {
        token: grant.access_token,
        shopCipher: cipher,
        query: { page_size: '100' },
      });
    const before = await read();
    await shopCall(h, 'POST', '/product/202309/products', {
      token: grant.access_token,
      shopCipher: cipher,
      body: { title: 'x' },
    });
    expect((await read()).body.data).toEqual(before.body.data);
  });
});

describe('video-shop app QPS limit', () => {
  it('answers 36009002 with HTTP 429 beyond the app QPS and admits again one second later', async () => {
    const h = await startShopSandbox({ SANDBOX_VIDEO_SHOP_APP_QPS: '3' });
    try {
      const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
      const other = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
      const call = (token: string) => shopCall(h, 'GET', '/authorization/202309/shops', { token });
      const statuses: number[] = [];
      for (const token of [grant.access_token, other.access_token, grant.access_token, other.access_token]) {
        statuses.push((await call(token)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await call(grant.access_token);
      expect(limited.body).toMatchObject({ code: 36009002, message: 'Too many requests.', data: null });
      h.clock.advance(1000);
      expect((await call(grant.access_token)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
