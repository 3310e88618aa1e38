import type { Harness } from '../testing/sandbox.harness';
import {
  clientSign,
  mintShopGrant,
  NORTHWIND,
  PIXEL_PANTRY,
  refreshWith,
  shopCall,
  startShopSandbox,
  type MintedGrant,
} from './testing/shop.harness';

const DAY_MS = 86_400_000;

describe('video-shop token lifecycle', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startShopSandbox();
  });
  afterEach(() => h.close());

  const shops = (token: string) => shopCall(h, 'GET', '/authorization/202309/shops', { token });
  const revoke = (body: object) =>
    fetch(`${h.url}/_sandbox/video-shop/revoke`, { method: 'POST', body: JSON.stringify(body) }).then(
      (response) => response.json() as Promise<{ revoked: number }>,
    );

  it('gives absolute expiries: access after 7 days, refresh after 30 days', async () => {
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const now = Math.floor(h.clock.ms / 1000);
    expect(grant.access_token_expire_in).toBe(now + 7 * 86_400);
    expect(grant.refresh_token_expire_in).toBe(now + 30 * 86_400);
  });

  it('answers an expired access token with 105002 and HTTP 401', async () => {
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    h.clock.advance(7 * DAY_MS - 1000);
    expect((await shops(grant.access_token)).body.code).toBe(0);
    h.clock.advance(1000);
    const { status, body } = await shops(grant.access_token);
    expect(status).toBe(401);
    expect(body).toMatchObject({ code: 105002, data: null });
  });

  it('rotates on refresh: a new pair works, the used refresh token is refused, the old access token lives on', async () => {
    const grant = await mintShopGrant(h, { open_id: PIXEL_PANTRY.open_id });
    h.clock.advance(DAY_MS);
    const refreshed = await refreshWith(h, grant.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.code).toBe(0);
    const pair = refreshed.body.data;
    expect(pair.access_token).not.toBe(grant.access_token);
    expect(pair.refresh_token).not.toBe(grant.refresh_token);
    expect(pair).toMatchObject({
      open_id: PIXEL_PANTRY.open_id,
      seller_name: PIXEL_PANTRY.name,
      seller_base_region: 'US',
      access_token_expire_in: Math.floor(h.clock.ms / 1000) + 7 * 86_400,
    });
    expect(pair.granted_scopes).toEqual(grant.granted_scopes);

    const again = await refreshWith(h, grant.refresh_token);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 36004004, data: null });

    expect((await shops(pair.access_token)).body.code).toBe(0);
    expect((await shops(grant.access_token)).body.code).toBe(0);
    h.clock.advance(6 * DAY_MS);
    expect((await shops(grant.access_token)).body.code).toBe(105002);
    expect((await shops(pair.access_token)).body.code).toBe(0);

    expect((await refreshWith(h, pair.refresh_token)).body.code).toBe(0);
  });

  it('refuses an expired refresh token', async () => {
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    h.clock.advance(30 * DAY_MS);
    const { status, body } = await refreshWith(h, grant.refresh_token);
    expect(status).toBe(400);
    expect(body.code).toBe(36004004);
  });

  it('refuses a refresh with a wrong app_secret (36004003, HTTP 401) without spending the refresh token', async () => {
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const wrong = await refreshWith(h, grant.refresh_token, 'not-the-secret');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe(36004003);
    expect((await refreshWith(h, grant.refresh_token)).body.code).toBe(0);
  });

  it('refuses a wrong grant_type and missing parameters with 36004001', async () => {
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const response = await fetch(
      `${h.url}/video-shop-auth/api/v2/token/refresh?${new URLSearchParams({
        app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
        app_secret: h.config.SANDBOX_VIDEO_SHOP_APP_SECRET,
        refresh_token: grant.refresh_token,
        grant_type: 'authorized_code',
      }).toString()}`,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: number }).code).toBe(36004001);
    const missing = await fetch(`${h.url}/video-shop-auth/api/v2/token/get?app_key=x`);
    expect(missing.status).toBe(400);
  });

  it.each([
    ['access_token', (grant: MintedGrant) => ({ access_token: grant.access_token })],
    ['refresh_token', (grant: MintedGrant) => ({ refresh_token: grant.refresh_token })],
    ['open_id', (grant: MintedGrant) => ({ open_id: grant.open_id })],
  ])(
    'revokes the grant by %s: the access token answers 36009004 and the refresh token is refused',
    async (_by, target) => {
      const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
      const rotated = (await refreshWith(h, grant.refresh_token)).body.data;
      const other = await mintShopGrant(h, { open_id: PIXEL_PANTRY.open_id });

      expect((await revoke(target({ ...grant, refresh_token: rotated.refresh_token }))).revoked).toBe(1);
      for (const token of [grant.access_token, rotated.access_token]) {
        const { status, body } = await shops(token);
        expect(status).toBe(401);
        expect(body).toMatchObject({ code: 36009004, data: null });
      }
      expect((await refreshWith(h, rotated.refresh_token)).body.code).toBe(36004004);
      expect((await shops(other.access_token)).body.code).toBe(0);
    },
  );

  it('issues random opaque tokens that never contain the secret or the seller id', async () => {
    const first = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const second = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const tokens = [first.access_token, first.refresh_token, second.access_token, second.refresh_token];
    expect(new Set(tokens).size).toBe(4);
    for (const token of tokens) {
      expect(token.length).toBeGreaterThanOrEqual(40);
      expect(token).not.toContain(h.config.SANDBOX_VIDEO_SHOP_APP_SECRET);
      expect(token).not.toContain(NORTHWIND.open_id);
    }
  });

  it('never answers with the app secret', async () => {
    const sellers = await (await fetch(`${h.url}/_sandbox/video-shop/sellers`)).text();
    const grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
    const refreshed = await refreshWith(h, grant.refresh_token);
    for (const text of [sellers, JSON.stringify(grant), JSON.stringify(refreshed.body)]) {
      expect(text).not.toContain(h.config.SANDBOX_VIDEO_SHOP_APP_SECRET);
    }
  });
});

describe('video-shop request replay', () => {
  let h: Harness;
  let grant: MintedGrant;

  beforeAll(async () => {
    h = await startShopSandbox();
    grant = await mintShopGrant(h, { open_id: NORTHWIND.open_id });
  });
  afterAll(() => h.close());

  it('refuses a signed query replayed on another path, or with its body changed', async () => {
    const cipher = grant.shops[0]?.cipher as string;
    const now = Math.floor(h.clock.ms / 1000);
    const query: Record<string, string> = {
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      timestamp: String(now),
      shop_cipher: cipher,
      page_size: '10',
    };
    const body = JSON.stringify({ order_status: 'COMPLETED' });
    const sign = clientSign(h.config.SANDBOX_VIDEO_SHOP_APP_SECRET, '/order/202309/orders/search', query, body);
    const search = (path: string, sentBody: string) =>
      fetch(`${h.url}/video-shop${path}?${new URLSearchParams({ ...query, sign }).toString()}`, {
        method: 'POST',
        headers: { 'x-tts-access-token': grant.access_token, 'Content-Type': 'application/json' },
        body: sentBody,
      });
    expect((await search('/order/202309/orders/search', body)).status).toBe(200);
    expect((await search('/product/202309/products/search', body)).status).toBe(401);
    expect((await search('/order/202309/orders/search', JSON.stringify({ order_status: 'CANCELLED' }))).status).toBe(
      401,
    );
  });
});
