import type { Harness } from '../testing/sandbox.harness';
import {
  clientSign,
  marketCall,
  MY_CB_SHOP,
  partnerApp,
  SG_SHOP,
  startMarketSandbox,
  type AppName,
} from './testing/marketplace.harness';

const REDIRECT = 'https://portal.example.com/connections/marketplace/callback?from=sandbox';
const PAGE = '/marketplace/api/v2/shop/auth_partner';

function pageUrl(h: Harness, app: AppName, redirect = REDIRECT, sign?: string): string {
  const { partner_id: partnerId, partner_key: key } = partnerApp(h, app);
  const timestamp = Math.floor(h.clock.ms / 1000);
  const query = new URLSearchParams({
    partner_id: String(partnerId),
    timestamp: String(timestamp),
    sign: sign ?? clientSign(key, [partnerId, '/api/v2/shop/auth_partner', timestamp]),
    redirect,
  });
  return `${h.url}${PAGE}?${query.toString()}`;
}

async function openPage(h: Harness, app: AppName, redirect = REDIRECT): Promise<string> {
  const response = await fetch(pageUrl(h, app, redirect));
  expect(response.status).toBe(200);
  const html = await response.text();
  const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(html)?.[1];
  expect(ticket).toBeDefined();
  return ticket as string;
}

async function press(h: Harness, ticket: string, action: 'authorize' | 'deny', shopId: number): Promise<Response> {
  const form = new URLSearchParams({ ticket, action, shop_id: String(shopId) });
  return fetch(`${h.url}${PAGE}`, { method: 'POST', body: form, redirect: 'manual' });
}

describe('marketplace shop authorization page', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startMarketSandbox();
  });
  afterAll(() => h.close());

  it('shows the app and the sandbox shops with a form to confirm or cancel', async () => {
    const response = await fetch(pageUrl(h, 'ads'));
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('Data Gateway (ads)');
    expect(html).toContain(`value="${MY_CB_SHOP.shop_id}"`);
    expect(html).toContain(MY_CB_SHOP.shop_name);
    expect(html).toContain(`<form method="post" action="${PAGE}">`);
  });

  for (const app of ['seller', 'ads', 'affiliate'] as const) {
    it(`lets a shop authorize the ${app} app, and the code turns into a working token pair once`, async () => {
      const ticket = await openPage(h, app);
      const response = await press(h, ticket, 'authorize', SG_SHOP.shop_id);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      expect(location.origin + location.pathname).toBe('https://portal.example.com/connections/marketplace/callback');
      expect(location.searchParams.get('from')).toBe('sandbox');
      expect(location.searchParams.get('shop_id')).toBe(String(SG_SHOP.shop_id));
      const code = location.searchParams.get('code') ?? '';
      expect(code).toMatch(/^[0-9a-f]{32}$/);

      const { partner_id: partnerId } = partnerApp(h, app);
      const body = { code, partner_id: partnerId, shop_id: SG_SHOP.shop_id };
      const first = await marketCall(h, app, 'POST', '/api/v2/auth/token/get', { body });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ error: '', message: '', expire_in: 4 * 3600 });
      expect(first.body).not.toHaveProperty('response');
      expect(first.body.access_token).toMatch(/^[0-9a-f]{32}$/);
      expect(first.body.refresh_token).toMatch(/^[0-9a-f]{32}$/);

      const again = await marketCall(h, app, 'POST', '/api/v2/auth/token/get', { body });
      expect(again.body).toMatchObject({ error: 'error_auth', message: 'Invalid code.' });

      const path = {
        seller: '/api/v2/shop/get_shop_info',
        ads: '/api/v2/ads/get_total_balance',
        affiliate: '/api/v2/ams/get_performance_data_update_time',
      }[app];
      const read = await marketCall(h, app, 'GET', path, {
        grant: { access_token: first.body.access_token as string, shop_id: SG_SHOP.shop_id },
        query: app === 'affiliate' ? { marker_type: 'AmsMarker' } : {},
      });
      expect(read.body.error).toBe('');
    });
  }

  it('redirects without a code when the seller cancels', async () => {
    const ticket = await openPage(h, 'seller');
    const response = await press(h, ticket, 'deny', SG_SHOP.shop_id);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.searchParams.has('code')).toBe(false);
    expect(location.searchParams.get('from')).toBe('sandbox');
  });

  it('refuses a code of another app, and a ticket used twice', async () => {
    const ticket = await openPage(h, 'seller');
    const response = await press(h, ticket, 'authorize', SG_SHOP.shop_id);
    const code = new URL(response.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const ads = partnerApp(h, 'ads');
    const wrongApp = await marketCall(h, 'ads', 'POST', '/api/v2/auth/token/get', {
      body: { code, partner_id: ads.partner_id, shop_id: SG_SHOP.shop_id },
    });
    expect(wrongApp.body.error).toBe('error_auth');
    expect((await press(h, ticket, 'authorize', SG_SHOP.shop_id)).status).toBe(400);
  });

  it('shows an error page for a wrong sign or a redirect that is not http(s)', async () => {
    const badSign = await fetch(pageUrl(h, 'seller', REDIRECT, 'cd'.repeat(32)));
    expect(badSign.status).toBe(400);
    expect(await badSign.text()).toContain('error_sign');
    expect((await fetch(pageUrl(h, 'seller', 'javascript:alert(1)'))).status).toBe(400);
  });

  it('expires an unused code after 10 minutes', async () => {
    const ticket = await openPage(h, 'affiliate');
    const response = await press(h, ticket, 'authorize', MY_CB_SHOP.shop_id);
    const code = new URL(response.headers.get('location') ?? '').searchParams.get('code') ?? '';
    h.clock.advance(600_000);
    const { body } = await marketCall(h, 'affiliate', 'POST', '/api/v2/auth/token/get', {
      body: { code, partner_id: partnerApp(h, 'affiliate').partner_id, shop_id: MY_CB_SHOP.shop_id },
    });
    expect(body.error).toBe('error_auth');
  });
});

describe('marketplace authorization page with registered redirect prefixes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startMarketSandbox({ SANDBOX_MARKETPLACE_REDIRECT_URIS: 'https://portal.example.com/' });
  });
  afterAll(() => h.close());

  it('accepts a redirect under a registered prefix and refuses any other', async () => {
    expect((await fetch(pageUrl(h, 'seller'))).status).toBe(200);
    const other = await fetch(pageUrl(h, 'seller', 'https://evil.example.net/callback'));
    expect(other.status).toBe(400);
  });
});
