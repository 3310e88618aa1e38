import type { Harness } from '../testing/sandbox.harness';
import {
  marketCall,
  mintMarketGrant,
  partnerApp,
  SG_SHOP,
  startMarketSandbox,
  TH_SHOP,
  type AppName,
  type MintedMarketGrant,
} from './testing/marketplace.harness';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('marketplace token lifecycle', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startMarketSandbox();
  });
  afterEach(() => h.close());

  const shopInfo = (grant: { access_token: string; shop_id: number }) =>
    marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', { grant });

  const refresh = (app: AppName, refreshToken: string, shopId = SG_SHOP.shop_id) =>
    marketCall(h, app, 'POST', '/api/v2/auth/access_token/get', {
      body: { refresh_token: refreshToken, partner_id: partnerApp(h, app).partner_id, shop_id: shopId },
    });

  const revoke = (body: object) =>
    fetch(`${h.url}/_sandbox/marketplace/revoke`, { method: 'POST', body: JSON.stringify(body) }).then(
      (response) => response.json() as Promise<{ revoked: number }>,
    );

  it('expires an access token after 4 hours with error_auth "Invalid access_token."', async () => {
    const grant = await mintMarketGrant(h, 'seller', SG_SHOP);
    expect(grant.expire_in).toBe(4 * 3600);
    h.clock.advance(4 * HOUR_MS - 1000);
    expect((await shopInfo(grant)).body.error).toBe('');
    h.clock.advance(1000);
    const { status, body } = await shopInfo(grant);
    expect(status).toBe(200);
    expect(body).toMatchObject({ error: 'error_auth', message: 'Invalid access_token.' });
  });

  it('rotates on refresh: a new pair works, the used refresh token is refused, the old access token lives on', async () => {
    const grant = await mintMarketGrant(h, 'seller', SG_SHOP);
    h.clock.advance(HOUR_MS);
    const refreshed = await refresh('seller', grant.refresh_token);
    expect(refreshed.body).toMatchObject({
      error: '',
      message: '',
      partner_id: partnerApp(h, 'seller').partner_id,
      shop_id: SG_SHOP.shop_id,
      expire_in: 4 * 3600,
    });
    const pair = refreshed.body as unknown as MintedMarketGrant;
    expect(pair.access_token).not.toBe(grant.access_token);
    expect(pair.refresh_token).not.toBe(grant.refresh_token);

    const again = await refresh('seller', grant.refresh_token);
    expect(again.body).toMatchObject({ error: 'error_param', message: 'Invalid refresh_token.' });

    const next = { access_token: pair.access_token, shop_id: SG_SHOP.shop_id };
    expect((await shopInfo(next)).body.error).toBe('');
    expect((await shopInfo(grant)).body.error).toBe('');
    h.clock.advance(3 * HOUR_MS);
    expect((await shopInfo(grant)).body.error).toBe('error_auth');
    expect((await shopInfo(next)).body.error).toBe('');
    expect((await refresh('seller', pair.refresh_token)).body.error).toBe('');
  });

  it('refuses a refresh token after 30 days, from another app, or for another shop', async () => {
    const grant = await mintMarketGrant(h, 'ads', SG_SHOP);
    expect((await refresh('seller', grant.refresh_token)).body.error).toBe('error_param');
    expect((await refresh('ads', grant.refresh_token, TH_SHOP.shop_id)).body.error).toBe('error_param');
    h.clock.advance(30 * DAY_MS);
    expect((await refresh('ads', grant.refresh_token)).body.error).toBe('error_param');
  });

  it('keeps the three apps of one shop apart: three grants, three token pairs', async () => {
    const seller = await mintMarketGrant(h, 'seller', SG_SHOP);
    const ads = await mintMarketGrant(h, 'ads', SG_SHOP);
    const affiliate = await mintMarketGrant(h, 'affiliate', SG_SHOP);
    expect(new Set([seller.access_token, ads.access_token, affiliate.access_token]).size).toBe(3);
    expect(await revoke({ partner_id: partnerApp(h, 'ads').partner_id, shop_id: SG_SHOP.shop_id })).toEqual({
      revoked: 1,
    });
    expect((await shopInfo(seller)).body.error).toBe('');
    const adsCall = await marketCall(h, 'ads', 'GET', '/api/v2/ads/get_total_balance', { grant: ads });
    expect(adsCall.body).toMatchObject({ error: 'error_auth', message: 'Invalid access_token.' });
    expect((await refresh('ads', ads.refresh_token)).body.error).toBe('error_param');
  });

  it('kills the whole grant when revoked by access token or by refresh token', async () => {
    const first = await mintMarketGrant(h, 'seller', SG_SHOP);
    expect(await revoke({ access_token: first.access_token })).toEqual({ revoked: 1 });
    expect((await shopInfo(first)).body.error).toBe('error_auth');
    expect((await refresh('seller', first.refresh_token)).body.error).toBe('error_param');

    const second = await mintMarketGrant(h, 'seller', SG_SHOP);
    expect(await revoke({ refresh_token: second.refresh_token })).toEqual({ revoked: 1 });
    expect((await shopInfo(second)).body.error).toBe('error_auth');
    expect(await revoke({ refresh_token: second.refresh_token })).toEqual({ revoked: 0 });
  });

  it('answers a missing or made-up access token with error_param or error_auth', async () => {
    const grant = await mintMarketGrant(h, 'seller', SG_SHOP);
    const missing = await marketCall(h, 'seller', 'GET', '/api/v2/shop/get_shop_info', {
      grant,
      omit: ['access_token'],
    });
    expect(missing.body.error).toBe('error_param');
    const madeUp = await shopInfo({ access_token: 'f'.repeat(32), shop_id: SG_SHOP.shop_id });
    expect(madeUp.body).toMatchObject({ error: 'error_auth', message: 'Invalid access_token.' });
  });

  it('lists the shops that authorized an app on get_shops_by_partner (a public call)', async () => {
    await mintMarketGrant(h, 'affiliate', TH_SHOP);
    const { text, body } = await marketCall(h, 'affiliate', 'GET', '/api/v2/public/get_shops_by_partner');
    expect(body.error).toBe('');
    expect(body.authed_shop_list).toEqual([expect.objectContaining({ shop_id: TH_SHOP.shop_id, region: 'TH' })]);
    expect(text).toContain(`"shop_id":${TH_SHOP.shop_id}`);
  });
});
