import type { Harness } from '../testing/sandbox.harness';
import { ConfigSchema } from '../config';
import {
  marketCall,
  mintMarketGrant,
  MY_CB_SHOP,
  partnerApp,
  SG_SHOP,
  startMarketSandbox,
  type MintedMarketGrant,
} from './testing/marketplace.harness';

const SHOP_INFO = '/api/v2/shop/get_shop_info';
const BALANCE = '/api/v2/ads/get_total_balance';

describe('marketplace daily call limit (error_limit)', () => {
  let h: Harness;
  let seller: MintedMarketGrant;
  let sellerOther: MintedMarketGrant;
  let ads: MintedMarketGrant;

  beforeAll(async () => {
    h = await startMarketSandbox({ SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT: '3' });
    seller = await mintMarketGrant(h, 'seller', SG_SHOP);
    sellerOther = await mintMarketGrant(h, 'seller', MY_CB_SHOP);
    ads = await mintMarketGrant(h, 'ads', SG_SHOP);
  });
  afterAll(() => h.close());

  const setLimit = (daily_limit: number | null) =>
    fetch(`${h.url}/_sandbox/marketplace/call-limit`, { method: 'POST', body: JSON.stringify({ daily_limit }) });

  it('defaults to a limit no test reaches, and 0 turns it off', () => {
    const config = ConfigSchema.parse({ NODE_ENV: 'test' });
    expect(config.SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT).toBeGreaterThanOrEqual(10_000_000);
    expect(() => ConfigSchema.parse({ NODE_ENV: 'test', SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT: '-1' })).toThrow();
  });

  it('answers error_limit with HTTP 200 and the envelope once an app has made its calls for a shop today', async () => {
    for (let i = 0; i < 3; i++) {
      const { status, body } = await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller });
      expect([status, body.error]).toEqual([200, '']);
    }
    const refused = await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      error: 'error_limit',
      message: expect.stringMatching(/daily call limit/),
    });

    // Counted per app and shop: the same app for another shop, and another app for the same shop, still answer.
    expect((await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: sellerOther })).body.error).toBe('');
    expect((await marketCall(h, 'ads', 'GET', BALANCE, { grant: ads })).body.error).toBe('');

    const status = (await (await fetch(`${h.url}/_sandbox/marketplace/call-limit`)).json()) as object;
    expect(status).toEqual({
      daily_limit: 3,
      calls: expect.arrayContaining([
        { partner_id: partnerApp(h, 'seller').partner_id, shop_id: SG_SHOP.shop_id, calls: 3 },
        { partner_id: partnerApp(h, 'seller').partner_id, shop_id: MY_CB_SHOP.shop_id, calls: 1 },
        { partner_id: partnerApp(h, 'ads').partner_id, shop_id: SG_SHOP.shop_id, calls: 1 },
      ]),
    });

    // A new UTC day starts the counts again (with a new token: the old one has expired by then).
    h.clock.advance(86_400_000);
    seller = await mintMarketGrant(h, 'seller', SG_SHOP);
    expect((await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller })).body.error).toBe('');
  });

  it('counts only calls that pass the signature and token checks, and checks the limit before the parameters', async () => {
    expect((await setLimit(1)).status).toBe(200);
    const badSign = await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller, sign: '0'.repeat(64) });
    expect(badSign.body.error).toBe('error_sign');
    const badToken = await marketCall(h, 'seller', 'GET', SHOP_INFO, {
      grant: { access_token: 'f'.repeat(32), shop_id: SG_SHOP.shop_id },
    });
    expect(badToken.body.error).toBe('error_auth');
    // A call with bad parameters still counts: the platform did the work of refusing it.
    const badParams = await marketCall(h, 'seller', 'GET', '/api/v2/product/get_item_list', { grant: seller });
    expect(badParams.body.error).toBe('error_param');
    const limited = await marketCall(h, 'seller', 'GET', '/api/v2/product/get_item_list', { grant: seller });
    expect(limited.body.error).toBe('error_limit');
  });

  it('lets the control route set, turn off and restore the limit, each time starting the counts again', async () => {
    await setLimit(1);
    expect((await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller })).body.error).toBe('');
    expect((await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller })).body.error).toBe('error_limit');
    await setLimit(0);
    for (let i = 0; i < 5; i++) {
      expect((await marketCall(h, 'seller', 'GET', SHOP_INFO, { grant: seller })).body.error).toBe('');
    }
    const restored = await setLimit(null);
    expect(await restored.json()).toEqual({ daily_limit: 3, calls: [] });
    expect((await setLimit(-1)).status).toBe(400);
    expect(
      (await fetch(`${h.url}/_sandbox/marketplace/call-limit`, { method: 'POST', body: '{"limit":1}' })).status,
    ).toBe(400);
  });
});
