import type { Harness } from '../testing/sandbox.harness';
import { LUMEN, shopCall, startShopSandbox, tokenCall, type MintedGrant } from './testing/shop.harness';

const REDIRECT = 'https://portal.example.com/connections/video-shop/callback?from=sandbox';
const AUTHORIZE = '/video-shop-auth/oauth/authorize';

describe('video-shop seller authorization flow', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startShopSandbox();
  });
  afterAll(() => h.close());

  function pageUrl(params: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      state: 'st-7',
      redirect_uri: REDIRECT,
      ...params,
    });
    return `${h.url}${AUTHORIZE}?${query.toString()}`;
  }

  /** What the seller does on the page: pick the account and press a button. */
  async function submit(action: 'authorize' | 'deny', openId = LUMEN.open_id): Promise<URL> {
    const form = new URLSearchParams({
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      state: 'st-7',
      redirect_uri: REDIRECT,
      open_id: openId,
      action,
    });
    const response = await fetch(`${h.url}${AUTHORIZE}`, { method: 'POST', body: form, redirect: 'manual' });
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') ?? '');
  }

  function exchange(code: string, secret = h.config.SANDBOX_VIDEO_SHOP_APP_SECRET) {
    return tokenCall<MintedGrant>(h, '/api/v2/token/get', {
      app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
      app_secret: secret,
      auth_code: code,
      grant_type: 'authorized_code',
    });
  }

  it('shows the app and the sandbox sellers with their shops, and a form to authorize or deny', async () => {
    const response = await fetch(pageUrl());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('Data Gateway');
    expect(html).toContain('Shenzhen Lumen Trading Co., Ltd.');
    expect(html).toContain('Lumen Home MY - MY, CROSS_BORDER');
    expect(html).toContain(`value="${LUMEN.open_id}"`);
    expect(html).toContain(`<form method="post" action="${AUTHORIZE}">`);
    expect(html).toContain('value="authorize"');
    expect(html).toContain('value="deny"');
  });

  it('redirects with code and state on approval, and the code buys a token pair once', async () => {
    const location = await submit('authorize');
    expect(`${location.origin}${location.pathname}`).toBe('https://portal.example.com/connections/video-shop/callback');
    expect(location.searchParams.get('from')).toBe('sandbox');
    expect(location.searchParams.get('state')).toBe('st-7');
    const code = location.searchParams.get('code') as string;
    expect(code.length).toBeGreaterThanOrEqual(20);

    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(first.body.code).toBe(0);
    expect(first.body.data).toMatchObject({
      open_id: LUMEN.open_id,
      seller_name: LUMEN.name,
      seller_base_region: 'CN',
      access_token_expire_in: Math.floor(h.clock.ms / 1000) + 7 * 86_400,
      refresh_token_expire_in: Math.floor(h.clock.ms / 1000) + 30 * 86_400,
    });
    expect(first.body.data.granted_scopes).toContain('seller.order.info');

    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 36004004, data: null });

    const shops = await shopCall<{ shops: { id: string; cipher: string }[] }>(h, 'GET', '/authorization/202309/shops', {
      token: first.body.data.access_token,
    });
    expect(shops.body.data.shops.map((shop) => shop.id)).toEqual(LUMEN.shops.map((shop) => shop.id));
  });

  it('redirects with error=access_denied and the state when the seller denies', async () => {
    const location = await submit('deny');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-7');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('does not spend the code on a wrong app_secret', async () => {
    const code = (await submit('authorize')).searchParams.get('code') as string;
    const wrong = await exchange(code, 'wrong-secret');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe(36004003);
    expect((await exchange(code)).body.code).toBe(0);
  });

  it('expires a code after the auth code lifetime', async () => {
    const code = (await submit('authorize')).searchParams.get('code') as string;
    h.clock.advance(h.config.SANDBOX_AUTH_CODE_TTL_MS);
    expect((await exchange(code)).body.code).toBe(36004004);
  });

  it('shows an error page for an unknown app_key, a non-http redirect_uri or no redirect address at all', async () => {
    const unknown = await fetch(pageUrl({ app_key: 'nosuchapp' }));
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Invalid app_key');
    expect((await fetch(pageUrl({ redirect_uri: 'javascript:alert(1)' }))).status).toBe(400);
    const query = new URLSearchParams({ app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY, state: 's' });
    expect((await fetch(`${h.url}${AUTHORIZE}?${query.toString()}`)).status).toBe(400);
  });

  it('answers the token paths only to GET', async () => {
    const response = await fetch(`${h.url}/video-shop-auth/api/v2/token/get`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(((await response.json()) as { code: number }).code).toBe(36009405);
    expect((await fetch(`${h.url}/video-shop-auth/api/v2/nothing`)).status).toBe(404);
  });
});

describe('video-shop authorization with registered redirect addresses', () => {
  it('accepts only registered prefixes and uses the first one when redirect_uri is left out', async () => {
    const registered = 'https://app.example.com/shop/callback';
    const h = await startShopSandbox({ SANDBOX_VIDEO_SHOP_REDIRECT_URIS: `${registered},https://other.example.com/` });
    try {
      const key = h.config.SANDBOX_VIDEO_SHOP_APP_KEY;
      const foreign = new URLSearchParams({ app_key: key, state: 's', redirect_uri: 'https://evil.example.com/cb' });
      const refused = await fetch(`${h.url}${AUTHORIZE}?${foreign.toString()}`);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('not registered');

      const form = new URLSearchParams({ app_key: key, state: 's', open_id: LUMEN.open_id, action: 'authorize' });
      const response = await fetch(`${h.url}${AUTHORIZE}`, { method: 'POST', body: form, redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\/shop\/callback\?code=/);
    } finally {
      await h.close();
    }
  });
});
