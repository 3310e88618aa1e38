import {
  NORTHWIND_BC,
  NORTHWIND_US,
  PIXEL_PANTRY,
  PIXEL_PANTRY_BC,
  startSandbox,
  type Envelope,
  type Harness,
} from '../testing/sandbox.harness';

const REDIRECT = 'https://portal.example.com/connections/video-ads/callback?from=sandbox';

describe('advertiser grant flow', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSandbox();
  });
  afterAll(() => h.close());

  function authorizeUrl(appId = h.config.SANDBOX_APP_ID, redirectUri = REDIRECT): string {
    const query = new URLSearchParams({ app_id: appId, state: 'st-42', redirect_uri: redirectUri });
    return `${h.url}/portal/auth?${query.toString()}`;
  }

  /** What a person does on the page: pick a business center and press Authorize. */
  async function authorize(bcId: string): Promise<URL> {
    const form = new URLSearchParams({
      app_id: h.config.SANDBOX_APP_ID,
      state: 'st-42',
      redirect_uri: REDIRECT,
      bc_id: bcId,
      action: 'authorize',
    });
    const response = await fetch(`${h.url}/portal/auth`, { method: 'POST', body: form, redirect: 'manual' });
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') ?? '');
  }

  function exchange(authCode: string, secret = h.config.SANDBOX_APP_SECRET) {
    return h.post<{ access_token: string; advertiser_ids: string[]; scope: number[] }>('/oauth2/access_token/', {
      app_id: h.config.SANDBOX_APP_ID,
      secret,
      auth_code: authCode,
    });
  }

  it('shows the app and the business centers on the authorization page, with a form to authorize', async () => {
    const response = await fetch(authorizeUrl());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('Data Gateway');
    expect(html).toContain('Northwind Retail Group');
    expect(html).toContain(`value="${PIXEL_PANTRY_BC}"`);
    expect(html).toContain('<form method="post" action="/portal/auth">');
    expect(html).toContain('Authorize');
  });

  it('shows an error page for an unknown app_id or a bad redirect_uri', async () => {
    const unknown = await fetch(authorizeUrl('999'));
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Invalid app_id');
    const badRedirect = await fetch(authorizeUrl(h.config.SANDBOX_APP_ID, 'javascript:alert(1)'));
    expect(badRedirect.status).toBe(400);
  });

  it('redirects with auth_code, code and state, and exchanges the code for a token of the chosen advertisers', async () => {
    const location = await authorize(PIXEL_PANTRY_BC);
    expect(`${location.origin}${location.pathname}`).toBe('https://portal.example.com/connections/video-ads/callback');
    expect(location.searchParams.get('from')).toBe('sandbox');
    expect(location.searchParams.get('state')).toBe('st-42');
    const authCode = location.searchParams.get('auth_code') as string;
    expect(authCode).toMatch(/^[0-9a-f]{40}$/);
    expect(location.searchParams.get('code')).toBe(authCode);

    const { code, data } = await exchange(authCode);
    expect(code).toBe(0);
    expect(data.advertiser_ids).toEqual([PIXEL_PANTRY]);
    expect(data.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(data.scope.length).toBeGreaterThan(0);

    const advertisers = await h.get<{ list: { advertiser_id: string }[] }>(
      '/oauth2/advertiser/get/',
      { app_id: h.config.SANDBOX_APP_ID, secret: h.config.SANDBOX_APP_SECRET },
      data.access_token,
    );
    expect(advertisers.data.list.map((a) => a.advertiser_id)).toEqual([PIXEL_PANTRY]);
  });

  it('accepts an auth_code only once', async () => {
    const authCode = (await authorize(NORTHWIND_BC)).searchParams.get('auth_code') as string;
    expect((await exchange(authCode)).code).toBe(0);
    const again = await exchange(authCode);
    expect(again).toMatchObject({ code: 40110, data: {} });
  });

  it('refuses an unknown auth_code and a wrong secret', async () => {
    expect((await exchange('0'.repeat(40))).code).toBe(40110);
    const authCode = (await authorize(NORTHWIND_BC)).searchParams.get('auth_code') as string;
    expect((await exchange(authCode, 'wrong-secret')).code).toBe(40101);
    // The failed attempt did not consume the code.
    expect((await exchange(authCode)).code).toBe(0);
  });

  it('expires an auth_code after one hour', async () => {
    const authCode = (await authorize(NORTHWIND_BC)).searchParams.get('auth_code') as string;
    h.clock.advance(60 * 60 * 1000);
    expect((await exchange(authCode)).code).toBe(40110);
  });

  it('needs no Access-Token on the exchange and refuses a GET', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/oauth2/access_token/`);
    expect(response.status).toBe(405);
  });

  it('kills a token on revoke (40105) and a new grant brings the same advertiser back', async () => {
    const token = (await exchange((await authorize(NORTHWIND_BC)).searchParams.get('auth_code') as string)).data
      .access_token;
    expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, token)).code).toBe(0);

    const revoke = await fetch(`${h.url}/_sandbox/tokens/revoke`, {
      method: 'POST',
      body: JSON.stringify({ advertiser_id: NORTHWIND_US }),
    });
    expect(((await revoke.json()) as { revoked: number }).revoked).toBeGreaterThanOrEqual(1);
    expect(await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, token)).toMatchObject({
      code: 40105,
      message: 'Access token is incorrect or has been revoked.',
    });

    const regranted = await exchange((await authorize(NORTHWIND_BC)).searchParams.get('auth_code') as string);
    expect(regranted.data.advertiser_ids).toContain(NORTHWIND_US);
    expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, regranted.data.access_token)).code).toBe(0);
  });

  it('revokes a single token by value, also through the platform revoke_token path', async () => {
    const first = await h.grant({ advertiser_ids: [NORTHWIND_US] });
    const second = await h.grant({ advertiser_ids: [NORTHWIND_US] });
    await fetch(`${h.url}/_sandbox/tokens/revoke`, { method: 'POST', body: JSON.stringify({ access_token: first }) });
    expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, first)).code).toBe(40105);
    expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, second)).code).toBe(0);

    const revoked: Envelope = await h.post('/oauth2/revoke_token/', {
      app_id: h.config.SANDBOX_APP_ID,
      secret: h.config.SANDBOX_APP_SECRET,
      access_token: second,
    });
    expect(revoked.code).toBe(0);
    expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, second)).code).toBe(40105);
  });
});
