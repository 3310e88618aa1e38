import type { Harness } from '../testing/sandbox.harness';
import { startSandbox } from '../testing/sandbox.harness';
import { ConfigSchema } from '../config';
import { createSandboxServer } from '../server';
import { partnerApp, SG_SHOP, startMarketSandbox, TH_SHOP } from './testing/marketplace.harness';

describe('marketplace control routes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startMarketSandbox();
  });
  afterAll(() => h.close());

  const post = (path: string, body: unknown) =>
    fetch(`${h.url}/_sandbox/marketplace${path}`, { method: 'POST', body: JSON.stringify(body) });

  it('lists the shops and the three apps with their partner ids', async () => {
    const response = await fetch(`${h.url}/_sandbox/marketplace/shops`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { apps: { partner_id: number; app_type: string }[]; shops: unknown[] };
    expect(body.apps).toEqual([
      expect.objectContaining({ partner_id: 2001001, app_type: 'seller' }),
      expect.objectContaining({ partner_id: 2001002, app_type: 'ads' }),
      expect.objectContaining({ partner_id: 2001003, app_type: 'affiliate' }),
    ]);
    expect(body.shops).toHaveLength(3);
  });

  it('mints a grant with its token pair, expiry and shop', async () => {
    const response = await post('/grants', { partner_id: partnerApp(h, 'ads').partner_id, shop_id: TH_SHOP.shop_id });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      partner_id: 2001002,
      app_type: 'ads',
      shop_id: TH_SHOP.shop_id,
      access_token: expect.stringMatching(/^[0-9a-f]{32}$/),
      refresh_token: expect.stringMatching(/^[0-9a-f]{32}$/),
      expire_in: 14_400,
      shop: { shop_name: TH_SHOP.shop_name, region: 'TH' },
    });
  });

  it('refuses an unknown partner, an unknown shop, ids given as strings and an unknown route', async () => {
    expect((await post('/grants', { partner_id: 1, shop_id: SG_SHOP.shop_id })).status).toBe(400);
    expect((await post('/grants', { partner_id: 2001001, shop_id: 1 })).status).toBe(400);
    expect((await post('/grants', { partner_id: '2001001', shop_id: String(SG_SHOP.shop_id) })).status).toBe(400);
    expect((await post('/revoke', { shop_id: SG_SHOP.shop_id })).status).toBe(400);
    expect((await fetch(`${h.url}/_sandbox/marketplace/nothing`)).status).toBe(404);
  });
});

describe('marketplace control routes outside test and development', () => {
  it('are not served in production', async () => {
    const config = ConfigSchema.parse({ NODE_ENV: 'production', PORT: '0' });
    const sandbox = createSandboxServer(config);
    const url = await sandbox.listen();
    try {
      const response = await fetch(`${url}/_sandbox/marketplace/shops`);
      expect(response.status).toBe(404);
    } finally {
      await sandbox.close();
    }
  });

  it('keep the platform itself served in every environment', async () => {
    const h = await startSandbox();
    try {
      const response = await fetch(`${h.url}/marketplace/api/v2/nothing`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'error_not_found' });
    } finally {
      await h.close();
    }
  });
});
