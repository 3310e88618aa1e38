import { startSandbox, type Harness } from '../testing/sandbox.harness';
import { LUMEN, mintShopGrant, NORTHWIND, shopCall, startShopSandbox } from './testing/shop.harness';

interface SellerList {
  app_key: string;
  scopes: string[];
  sellers: {
    open_id: string;
    seller_name: string;
    seller_base_region: string;
    shops: { id: string; region: string; seller_type: string; cipher: string; currency: string }[];
  }[];
}

describe('video-shop control surface', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startShopSandbox();
  });
  afterAll(() => h.close());

  const post = (path: string, body: unknown) =>
    fetch(`${h.url}/_sandbox/video-shop${path}`, { method: 'POST', body: JSON.stringify(body) });

  it('lists the sandbox sellers with their shops, regions, seller types and ciphers', async () => {
    const response = await fetch(`${h.url}/_sandbox/video-shop/sellers`);
    expect(response.status).toBe(200);
    const list = (await response.json()) as SellerList;
    expect(list.app_key).toBe(h.config.SANDBOX_VIDEO_SHOP_APP_KEY);
    expect(list.sellers.map((seller) => seller.seller_name)).toEqual([
      'Northwind Goods',
      'Shenzhen Lumen Trading Co., Ltd.',
      'Pixel Pantry Foods LLC',
    ]);
    const shops = list.sellers.flatMap((seller) => seller.shops);
    expect(new Set(shops.map((shop) => shop.seller_type))).toEqual(new Set(['LOCAL', 'CROSS_BORDER']));
    expect(new Set(shops.map((shop) => shop.region))).toEqual(new Set(['US', 'GB', 'MY']));
    expect(new Set(shops.map((shop) => shop.cipher)).size).toBe(shops.length);
  });

  it('mints a grant for a seller, or for the seller of a shop, with the token pair and the shops', async () => {
    const bySeller = await mintShopGrant(h, { open_id: LUMEN.open_id });
    expect(bySeller).toMatchObject({
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      open_id: LUMEN.open_id,
      seller_base_region: 'CN',
      access_token_expire_in: Math.floor(h.clock.ms / 1000) + 7 * 86_400,
    });
    expect(bySeller.shops.map((shop) => shop.cipher)).toEqual(LUMEN.shops.map((shop) => shop.cipher));
    const byShop = await mintShopGrant(h, { shop_id: NORTHWIND.shops[1]?.id as string });
    expect(byShop.open_id).toBe(NORTHWIND.open_id);
    expect((await shopCall(h, 'GET', '/seller/202309/shops', { token: byShop.access_token })).body.code).toBe(0);
  });

  it('refuses unknown sellers, unknown scopes and malformed bodies', async () => {
    expect((await post('/grants', { open_id: 'nobody' })).status).toBe(400);
    expect((await post('/grants', { open_id: LUMEN.open_id, scopes: ['everything'] })).status).toBe(400);
    expect((await post('/grants', {})).status).toBe(400);
    expect((await post('/grants', { open_id: LUMEN.open_id, shop_id: '1' })).status).toBe(400);
    expect((await post('/revoke', { token: 'x' })).status).toBe(400);
    expect((await fetch(`${h.url}/_sandbox/video-shop/nothing`)).status).toBe(404);
  });

  it('answers revoke with the number of grants it cancelled', async () => {
    await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const response = await post('/revoke', { open_id: NORTHWIND.open_id });
    expect(((await response.json()) as { revoked: number }).revoked).toBeGreaterThanOrEqual(2);
    const unknown = await post('/revoke', { access_token: 'unknown' });
    expect(await unknown.json()).toEqual({ revoked: 0 });
  });
});

describe('video-shop control surface in production mode', () => {
  it('does not exist, while the platform paths still answer', async () => {
    const h = await startSandbox({ NODE_ENV: 'production' });
    try {
      for (const [method, path] of [
        ['GET', '/_sandbox/video-shop/sellers'],
        ['POST', '/_sandbox/video-shop/grants'],
        ['POST', '/_sandbox/video-shop/revoke'],
      ] as const) {
        const response = await fetch(`${h.url}${path}`, { method, body: method === 'GET' ? undefined : '{}' });
        expect(response.status).toBe(404);
      }
      const api = await fetch(`${h.url}/video-shop/authorization/202309/shops`);
      expect(api.status).toBe(401);
    } finally {
      await h.close();
    }
  });
});
