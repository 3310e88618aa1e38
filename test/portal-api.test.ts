import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { testDatabaseUri, testNatsUrl } from './harness';

/**
 * portal-api end to end: the JSON API against a real cluster (sandbox, provider-proxy, quota-actor, edge-auth) and
 * a real portal-api process. Grants go through the sandbox's authorization page; keys are checked on the REST edge.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let portal: string;
let edge: string;
let mongoUri: string;

const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';
const MARKET_AUTH = '/marketplace/api/v2/shop/auth_partner';
const MARKETPLACE_APPS = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const;
type MarketplaceProvider = (typeof MARKETPLACE_APPS)[number];
/** One read of each app, answered by that app only (another app's path is 403 path_not_allowed). */
const MARKETPLACE_READS: Record<MarketplaceProvider, string> = {
  marketplace: '/v1/marketplace/api/v2/shop/get_shop_info',
  'marketplace-ads': '/v1/marketplace-ads/api/v2/ads/get_total_balance',
  'marketplace-affiliate':
    '/v1/marketplace-affiliate/api/v2/ams/get_performance_data_update_time?marker_type=AmsMarker',
};
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  mongoUri = testDatabaseUri();
  // Usage reaches MongoDB every second here (the default is 5 s), so the usage page is checked without long waits.
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    edges: 1,
    actors: 1,
    actorEnv: { USAGE_FLUSH_MS: '1000' },
  });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000 });
  portal = (await cluster.startPortal({ SIGN_IN_MAX_FAILURES: '3', LOG_LEVEL: 'error' })).url;
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** A browser-like client: keeps cookies, sends the CSRF token on state changes. */
class PortalClient {
  readonly cookies = new Map<string, string>();
  readonly setCookieLines: string[] = [];

  constructor(readonly base = portal) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async raw(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
    const response = await fetch(new URL(path, this.base), {
      method,
      redirect: 'manual',
      headers: {
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookieLines.push(line);
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const csrf: Record<string, string> = method === 'GET' ? {} : { 'x-csrf-token': await this.csrf() };
    const response = await this.raw(method, path, {
      ...(body === undefined ? {} : { body }),
      headers: { ...csrf, ...headers },
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
  }

  async csrf(): Promise<string> {
    const existing = this.cookies.get('dg_csrf');
    if (existing) return existing;
    const response = await this.raw('GET', '/api/csrf');
    return ((await response.json()) as { csrf_token: string }).csrf_token;
  }

  async signUp(
    email = `p-${randomBytes(5).toString('hex')}@example.test`,
  ): Promise<{ customerId: string; email: string }> {
    const answer = await this.call<{ customer: { customer_id: string } }>('POST', '/api/auth/sign-up', {
      name: 'Portal Tester',
      email,
      password: PASSWORD,
    });
    expect(answer.status).toBe(201);
    return { customerId: answer.body.customer.customer_id, email };
  }

  /** Starts a grant, authorizes on the sandbox's page like a person would, follows the callback. */
  async connectVideoAds(path = '/api/connections/grants', bcIndex = 0): Promise<URL> {
    const started = await this.call<{ authorization_url: string }>(
      'POST',
      path,
      path.endsWith('/grants') ? { provider: 'video-ads' } : undefined,
    );
    expect(started.status).toBe(201);
    const authorize = new URL(started.body.authorization_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${cluster.sandbox.url}/portal/auth`);
    const callback = await this.authorizeAtSandbox(authorize, bcIndex);
    return this.followCallback(callback);
  }

  async authorizeAtSandbox(authorize: URL, bcIndex = 0): Promise<URL> {
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    const bcIds = [...(await page.text()).matchAll(/name="bc_id" value="([^"]+)"/g)].map((m) => m[1]!);
    const form = new URLSearchParams({
      app_id: authorize.searchParams.get('app_id')!,
      state: authorize.searchParams.get('state')!,
      redirect_uri: authorize.searchParams.get('redirect_uri')!,
      bc_id: bcIds[bcIndex % bcIds.length]!,
      action: 'authorize',
    });
    const consent = await fetch(`${cluster.sandbox.url}/portal/auth`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(consent.status).toBe(302);
    return new URL(consent.headers.get('location')!);
  }

  /** The same for video-shop: the seller picks an account (open_id) on the sandbox's page and authorizes. */
  async connectVideoShop(path = '/api/connections/grants', sellerIndex = 0): Promise<URL> {
    const started = await this.call<{ authorization_url: string }>(
      'POST',
      path,
      path.endsWith('/grants') ? { provider: 'video-shop' } : undefined,
    );
    expect(started.status).toBe(201);
    const authorize = new URL(started.body.authorization_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${cluster.sandbox.url}/video-shop-auth/oauth/authorize`);
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    const openIds = [...(await page.text()).matchAll(/name="open_id" value="([^"]+)"/g)].map((m) => m[1]!);
    const consent = await fetch(`${cluster.sandbox.url}/video-shop-auth/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({
        app_key: authorize.searchParams.get('app_key')!,
        state: authorize.searchParams.get('state')!,
        redirect_uri: authorize.searchParams.get('redirect_uri')!,
        open_id: openIds[sellerIndex % openIds.length]!,
        action: 'authorize',
      }),
      redirect: 'manual',
    });
    expect(consent.status).toBe(302);
    return this.followCallback(new URL(consent.headers.get('location')!));
  }

  /**
   * The same for one marketplace app: the shop owner picks a shop on the sandbox's signed authorization page of
   * that app and confirms; the platform comes back to the callback with code and shop_id.
   */
  async connectMarketplace(provider: MarketplaceProvider, path = '/api/connections/grants', shopIndex = 0) {
    const started = await this.call<{ authorization_url: string }>(
      'POST',
      path,
      path.endsWith('/grants') ? { provider } : undefined,
    );
    expect(started.status).toBe(201);
    const authorize = new URL(started.body.authorization_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${cluster.sandbox.url}${MARKET_AUTH}`);
    expect(authorize.searchParams.get('partner_id')).toBe(cluster.secrets.marketplaceApps[provider].partnerId);
    const page = await fetch(authorize);
    expect(page.status).toBe(200);
    const html = await page.text();
    const shopIds = [...html.matchAll(/name="shop_id" value="([^"]+)"/g)].map((m) => m[1]!);
    const ticket = /name="ticket" value="([^"]+)"/.exec(html)![1]!;
    const consent = await fetch(`${cluster.sandbox.url}${MARKET_AUTH}`, {
      method: 'POST',
      body: new URLSearchParams({ ticket, shop_id: shopIds[shopIndex % shopIds.length]!, action: 'authorize' }),
      redirect: 'manual',
    });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);
    expect(callback.searchParams.get('shop_id')).toBe(shopIds[shopIndex % shopIds.length]);
    return this.followCallback(callback);
  }

  async followCallback(callback: URL): Promise<URL> {
    expect(callback.origin).toBe(portal);
    const back = await this.raw('GET', `${callback.pathname}${callback.search}`);
    expect(back.status).toBe(302);
    return new URL(back.headers.get('location')!, portal);
  }
}

async function rest(secret: string, headers: Record<string, string> = {}, path = ADVERTISERS) {
  const response = await fetch(`${edge}${path}`, { headers: { 'X-API-Key': secret, ...headers } });
  const body = (await response.json()) as { code?: unknown };
  return { status: response.status, code: body.code };
}

describe('portal-api - OpenAPI document', () => {
  it('is generated from the zod schemas and documents every operation, without secrets in the key listing', async () => {
    const response = await fetch(`${portal}/api/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(operations.sort()).toEqual(
      [
        'createKey',
        'getCsrfToken',
        'getMcpSettings',
        'getMe',
        'getPlan',
        'getUsage',
        'grantCallback',
        'listConnections',
        'listProviders',
        'listKeys',
        'revokeKey',
        'rotateKey',
        'setKeyIpAllowlist',
        'updateKey',
        'signIn',
        'signOut',
        'signUp',
        'startGrant',
        'startRegrant',
        'createSearchAdsKey',
        'verifySearchAdsApiUser',
        'connectSearchAds',
      ].sort(),
    );
    expect(doc.paths['/api/keys/{key_id}/rotate']?.post).toBeDefined();
    expect(Object.keys(doc.components.schemas.ApiKey?.properties ?? {})).not.toEqual(
      expect.arrayContaining(['secret']),
    );
    expect(Object.keys(doc.components.schemas.ApiKey?.properties ?? {})).not.toContain('hash');
    expect(doc.components.schemas.CreatedApiKey?.properties).toHaveProperty('secret');
    expect(Object.keys(doc.components.schemas.KeyUsage?.properties ?? {})).toEqual(
      expect.arrayContaining(['quota_used', 'share', 'status', 'days']),
    );
    expect(Object.keys(doc.components.schemas.UsageTotal?.properties ?? {}).sort()).toEqual(
      ['monthly_quota', 'remaining', 'suggestion_allowance', 'suggestions_used', 'used'].sort(),
    );
  });
});

describe('portal-api - sign-up, sign-in, sessions', () => {
  it('signs up with a session cookie that is HttpOnly and SameSite=Lax, and signs out', async () => {
    const client = new PortalClient();
    const { email } = await client.signUp();
    const sessionLine = client.setCookieLines.find((line) => line.startsWith('dg_session='))!;
    expect(sessionLine).toMatch(/HttpOnly/);
    expect(sessionLine).toMatch(/SameSite=Lax/);
    expect(sessionLine).toMatch(/Path=\//);
    const me = await client.call<{ customer: { email: string; plan: string } }>('GET', '/api/me');
    expect(me.status).toBe(200);
    expect(me.body.customer).toMatchObject({ email, plan: 'trial' });

    expect((await client.call('POST', '/api/auth/sign-out')).status).toBe(204);
    const after = await client.call<{ code: string }>('GET', '/api/me');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('not_signed_in');
    expect(after.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers validation messages per field, and 409 for a taken email', async () => {
    const client = new PortalClient();
    const bad = await client.call<{ code: string; errors: { path: string; message: string }[] }>(
      'POST',
      '/api/auth/sign-up',
      { name: '', email: 'not-an-email', password: 'short' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
    expect(bad.body.errors.map((error) => error.path).sort()).toEqual(['email', 'name', 'password']);
    expect(bad.body.errors.find((error) => error.path === 'password')?.message).toMatch(/12 characters/);

    const { email } = await client.signUp();
    const again = await new PortalClient().call<{ code: string }>('POST', '/api/auth/sign-up', {
      name: 'Someone',
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('email_taken');
  });

  it('signs in with the right password only and throttles failed attempts per email and address', async () => {
    const { email } = await new PortalClient().signUp();
    const client = new PortalClient();
    const wrong = await client.call<{ code: string }>('POST', '/api/auth/sign-in', { email, password: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_credentials');
    const unknown = await client.call<{ code: string }>('POST', '/api/auth/sign-in', {
      email: `nobody-${randomBytes(3).toString('hex')}@example.test`,
      password: PASSWORD,
    });
    expect(unknown.body.code).toBe('invalid_credentials');

    const right = await client.call('POST', '/api/auth/sign-in', { email, password: PASSWORD });
    expect(right.status).toBe(200);
    expect((await client.call('GET', '/api/me')).status).toBe(200);

    for (let i = 0; i < 3; i++) {
      expect((await client.call('POST', '/api/auth/sign-in', { email, password: `wrong-${i}` })).status).toBe(401);
    }
    const throttled = await client.call<{ code: string }>('POST', '/api/auth/sign-in', { email, password: PASSWORD });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('too_many_attempts');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('portal-api - CSRF', () => {
  it('refuses a state change without the token, with a wrong token, from another origin or another site', async () => {
    const client = new PortalClient();
    await client.signUp();
    const body = { name: 'k', providers: ['video-ads'] };
    const missing = await client.raw('POST', '/api/keys', { body });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as { code: string }).code).toBe('csrf_failed');
    const wrong = await client.call('POST', '/api/keys', body, { 'x-csrf-token': 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const foreign = await client.call('POST', '/api/keys', body, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const crossSite = await client.call('POST', '/api/keys', body, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const own = await client.call('POST', '/api/keys', body, { origin: portal, 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(201);
  });

  it('refuses a sign-in without the token (login CSRF)', async () => {
    const { email } = await new PortalClient().signUp();
    const response = await new PortalClient().raw('POST', '/api/auth/sign-in', { body: { email, password: PASSWORD } });
    expect(response.status).toBe(403);
  });
});

describe('portal-api - connections', () => {
  it('connects video-ads through the sandbox authorization page and lists the account id', async () => {
    const client = new PortalClient();
    await client.signUp();
    const back = await client.connectVideoAds();
    expect(back.pathname).toBe('/connections');
    const accountId = back.searchParams.get('connected');
    expect(accountId).toMatch(/^acct_[0-9A-Za-z]{20}$/);
    const list = await client.call<{
      connections: { account_id: string; provider: string; status: string }[];
      used: number;
      allowance: number;
    }>('GET', '/api/connections');
    expect(list.body.connections).toEqual([
      expect.objectContaining({ account_id: accountId, provider: 'video-ads', status: 'active' }),
    ]);
    expect({ used: list.body.used, allowance: list.body.allowance }).toEqual({ used: 1, allowance: 3 });
  });

  it('accepts a callback only in the session that started it, once', async () => {
    const alice = new PortalClient();
    await alice.signUp();
    const started = await alice.call<{ authorization_url: string }>('POST', '/api/connections/grants', {
      provider: 'video-ads',
    });
    const callback = await alice.authorizeAtSandbox(new URL(started.body.authorization_url));

    const mallory = new PortalClient();
    await mallory.signUp();
    expect((await mallory.followCallback(callback)).searchParams.get('error')).toBe('invalid_state');
    expect((await new PortalClient().followCallback(callback)).searchParams.get('error')).toBe('signed_out');

    expect((await alice.followCallback(callback)).searchParams.get('connected')).toMatch(/^acct_/);
    expect((await alice.followCallback(callback)).searchParams.get('error')).toBe('invalid_state');
    expect((await mallory.call<{ connections: unknown[] }>('GET', '/api/connections')).body.connections).toEqual([]);
  });

  it('re-grants after the platform revoked the token and keeps the account id (spec 3)', async () => {
    const client = new PortalClient();
    await client.signUp();
    const accountId = (await client.connectVideoAds('/api/connections/grants', 1)).searchParams.get('connected')!;
    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'regrant',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    expect((await rest(created.body.secret)).code).toBe(0);

    const connection = await fixtures.store.connections.findByAccountId(accountId);
    for (const advertiserId of connection!.external_account_ids) {
      await fetch(`${cluster.sandbox.url}/_sandbox/tokens/revoke`, {
        method: 'POST',
        body: JSON.stringify({ advertiser_id: advertiserId }),
      });
    }
    // The platform's 40105 never reaches the caller: the gateway names the connection to re-grant.
    expect(await rest(created.body.secret)).toEqual({ status: 409, code: 'connection_needs_regrant' });
    const marked = await client.call<{ connections: { account_id: string; status: string }[] }>(
      'GET',
      '/api/connections',
    );
    expect(marked.body.connections).toEqual([
      expect.objectContaining({ account_id: accountId, status: 'needs_regrant' }),
    ]);

    const back = await client.connectVideoAds(`/api/connections/${accountId}/regrant`, 1);
    expect(back.searchParams.get('connected')).toBe(accountId);
    expect((await rest(created.body.secret)).code).toBe(0);
    const list = await client.call<{ connections: { account_id: string; status: string }[] }>(
      'GET',
      '/api/connections',
    );
    expect(list.body.connections.map((c) => [c.account_id, c.status])).toEqual([[accountId, 'active']]);
  });

  it("enforces the plan's connection allowance; three marketplace apps on one shop are three connections", async () => {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    for (const provider of ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const) {
      await fixtures.otherConnection(customerId, provider);
    }
    const refused = await client.call<{ code: string; allowance: number; used: number }>(
      'POST',
      '/api/connections/grants',
      { provider: 'video-ads' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'connection_limit_reached', allowance: 3, used: 3 });
  });

  it('does not start a re-grant of another customer connection', async () => {
    const other = new PortalClient();
    const { customerId } = await other.signUp();
    const foreign = await fixtures.otherConnection(customerId, 'marketplace');
    const client = new PortalClient();
    await client.signUp();
    expect((await client.call('POST', `/api/connections/${foreign}/regrant`)).status).toBe(404);
  });
});

describe('portal-api - video-shop grants', () => {
  const SHOPS = '/v1/video-shop/authorization/202309/shops';
  type Connections = {
    connections: { account_id: string; provider: string; status: string; external_account_ids: string[] }[];
    used: number;
  };

  async function sandboxSellers() {
    const answer = (await (await fetch(`${cluster.sandbox.url}/_sandbox/video-shop/sellers`)).json()) as {
      sellers: { open_id: string; shops: { id: string; cipher: string }[] }[];
    };
    return answer.sellers;
  }

  it('lists video-shop as grantable next to video-ads, the three marketplace apps and search-ads', async () => {
    const client = new PortalClient();
    await client.signUp();
    const list = await client.call<{ grantable_providers: string[] }>('GET', '/api/connections');
    expect(list.body.grantable_providers).toEqual([
      'video-ads',
      'video-shop',
      'marketplace',
      'marketplace-ads',
      'marketplace-affiliate',
      'search-ads',
    ]);
  });

  it('makes one connection per shop of the seller, with its cipher, and the account ids work on REST', async () => {
    const [seller] = await sandboxSellers();
    const client = new PortalClient();
    await client.signUp();
    const back = await client.connectVideoShop();
    expect(back.pathname).toBe('/connections');
    expect(back.searchParams.get('error')).toBeNull();
    const accountIds = back.searchParams.get('connected')!.split(',');
    expect(accountIds).toHaveLength(seller!.shops.length);

    const list = await client.call<Connections>('GET', '/api/connections');
    expect(list.body.used).toBe(seller!.shops.length);
    expect(list.body.connections.map((c) => [c.provider, c.status, c.external_account_ids]).sort()).toEqual(
      seller!.shops.map((shop) => ['video-shop', 'active', [shop.id]]).sort(),
    );
    for (const connection of list.body.connections) {
      const shop = seller!.shops.find((candidate) => candidate.id === connection.external_account_ids[0])!;
      const credentials = await fixtures.store.connections.loadCredentials(connection.account_id);
      expect(credentials).toMatchObject({
        refresh_token: expect.any(String),
        access_token_expires_at: expect.any(String),
        refresh_token_expires_at: expect.any(String),
        attributes: { shop_cipher: shop.cipher, shop_id: shop.id },
      });
    }

    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'shops',
      providers: ['video-shop'],
      account_ids: accountIds,
    });
    expect(created.status).toBe(201);
    for (const accountId of accountIds) {
      expect(await rest(created.body.secret, { 'X-Account-Id': accountId }, SHOPS)).toEqual({ status: 200, code: 0 });
    }
  });

  it('marks the shops needs_regrant after the seller revokes, and a re-grant restores them with the same ids', async () => {
    const seller = (await sandboxSellers())[0]!;
    const client = new PortalClient();
    await client.signUp();
    const accountIds = (await client.connectVideoShop()).searchParams.get('connected')!.split(',');
    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'revoked shops',
      providers: ['video-shop'],
      account_ids: accountIds,
    });
    const call = (accountId: string) => rest(created.body.secret, { 'X-Account-Id': accountId }, SHOPS);
    expect((await call(accountIds[0]!)).code).toBe(0);

    const revoked = await fetch(`${cluster.sandbox.url}/_sandbox/video-shop/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ open_id: seller.open_id }),
    });
    expect(revoked.status).toBe(200);
    for (const accountId of accountIds) {
      expect(await call(accountId)).toEqual({ status: 409, code: 'connection_needs_regrant' });
    }
    const marked = await client.call<Connections>('GET', '/api/connections');
    expect(marked.body.connections.map((c) => c.status)).toEqual(accountIds.map(() => 'needs_regrant'));

    // Another seller on the platform's page does not renew this shop.
    const wrong = await client.connectVideoShop(`/api/connections/${accountIds[0]}/regrant`, 1);
    expect(wrong.searchParams.get('error')).toBe('other_account');
    expect((await call(accountIds[0]!)).status).toBe(409);

    const back = await client.connectVideoShop(`/api/connections/${accountIds[0]}/regrant`, 0);
    expect(back.searchParams.get('regranted')).toBe('1');
    expect(back.searchParams.get('connected')!.split(',')[0]).toBe(accountIds[0]);
    for (const accountId of accountIds) expect(await call(accountId)).toEqual({ status: 200, code: 0 });
    const list = await client.call<Connections>('GET', '/api/connections');
    expect(list.body.connections.map((c) => [c.account_id, c.status]).sort()).toEqual(
      accountIds.map((id) => [id, 'active']).sort(),
    );

    // Connecting the same seller again renews the same connections instead of adding any.
    const again = await client.connectVideoShop();
    expect(again.searchParams.get('connected')!.split(',').sort()).toEqual([...accountIds].sort());
    expect(again.searchParams.get('regranted')).toBe('1');
    expect((await client.call<Connections>('GET', '/api/connections')).body.used).toBe(accountIds.length);
  });

  it('creates shops only while the plan has room', async () => {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    await fixtures.otherConnection(customerId, 'marketplace');
    // The second seller has three shops; the trial plan allows three connections, one is taken.
    const back = await client.connectVideoShop('/api/connections/grants', 1);
    expect(back.searchParams.get('error')).toBe('connection_limit_reached');
    expect(back.searchParams.get('connected')!.split(',')).toHaveLength(2);
    expect((await client.call<Connections>('GET', '/api/connections')).body.used).toBe(3);
  });
});

describe('portal-api - marketplace grants', () => {
  type Connections = {
    connections: { account_id: string; provider: string; status: string; external_account_ids: string[] }[];
    used: number;
    allowance: number;
  };

  /** A marketplace read with a key and an account id: the HTTP status and the envelope's `error`. */
  async function marketRead(secret: string, accountId: string, provider: MarketplaceProvider) {
    const response = await fetch(`${edge}${MARKETPLACE_READS[provider]}`, {
      headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
    });
    const body = (await response.json()) as { error?: unknown; code?: unknown };
    return { status: response.status, error: body.error ?? body.code };
  }

  it('makes one shop granted to the three apps three connections with three account ids and one shop id', async () => {
    const client = new PortalClient();
    await client.signUp();
    const accountIds: Record<string, string> = {};
    for (const provider of MARKETPLACE_APPS) {
      const back = await client.connectMarketplace(provider);
      expect(back.pathname).toBe('/connections');
      expect(back.searchParams.get('error')).toBeNull();
      expect(back.searchParams.get('regranted')).toBeNull();
      accountIds[provider] = back.searchParams.get('connected')!;
      expect(accountIds[provider]).toMatch(/^acct_[0-9A-Za-z]{20}$/);
    }
    expect(new Set(Object.values(accountIds)).size).toBe(3);

    const list = await client.call<Connections>('GET', '/api/connections');
    expect({ used: list.body.used, allowance: list.body.allowance }).toEqual({ used: 3, allowance: 3 });
    expect(list.body.connections.map((c) => [c.provider, c.account_id, c.status]).sort()).toEqual(
      MARKETPLACE_APPS.map((provider) => [provider, accountIds[provider], 'active']).sort(),
    );
    const shopIds = new Set(list.body.connections.map((c) => c.external_account_ids.join(',')));
    expect(shopIds.size).toBe(1);
    const [shopId] = [...shopIds];
    expect(shopId).toMatch(/^\d+$/);
    for (const provider of MARKETPLACE_APPS) {
      expect(await fixtures.store.connections.loadCredentials(accountIds[provider]!)).toMatchObject({
        access_token: expect.stringMatching(/^[0-9a-f]{32}$/),
        refresh_token: expect.any(String),
        access_token_expires_at: expect.any(String),
        refresh_token_expires_at: expect.any(String),
        attributes: { shop_id: shopId },
      });
    }

    // One portal key holding the three providers; each account id answers on REST through its own app.
    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'marketplace',
      providers: [...MARKETPLACE_APPS],
      account_ids: Object.values(accountIds),
    });
    expect(created.status).toBe(201);
    for (const provider of MARKETPLACE_APPS) {
      expect({ provider, ...(await marketRead(created.body.secret, accountIds[provider]!, provider)) }).toEqual({
        provider,
        status: 200,
        error: '',
      });
    }

    // A re-grant of one app keeps its account id; another shop on the platform's page does not renew it.
    const ads = accountIds['marketplace-ads']!;
    const wrong = await client.connectMarketplace('marketplace-ads', `/api/connections/${ads}/regrant`, 1);
    expect(wrong.searchParams.get('error')).toBe('other_account');
    expect(wrong.searchParams.get('connected')).toBeNull();
    const back = await client.connectMarketplace('marketplace-ads', `/api/connections/${ads}/regrant`, 0);
    expect(back.searchParams.get('connected')).toBe(ads);
    expect(back.searchParams.get('regranted')).toBe('1');
    expect(await marketRead(created.body.secret, ads, 'marketplace-ads')).toEqual({ status: 200, error: '' });
    const after = await client.call<Connections>('GET', '/api/connections');
    expect(after.body.used).toBe(3);
    expect(after.body.connections.map((c) => c.account_id).sort()).toEqual(Object.values(accountIds).sort());
  });

  it('marks a shop needs_regrant after the owner revokes one app, and a re-grant restores the same account id', async () => {
    const client = new PortalClient();
    await client.signUp();
    const accountId = (await client.connectMarketplace('marketplace')).searchParams.get('connected')!;
    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'revoked marketplace',
      providers: ['marketplace'],
      account_ids: [accountId],
    });
    expect(await marketRead(created.body.secret, accountId, 'marketplace')).toEqual({ status: 200, error: '' });
    const connection = await fixtures.store.connections.findByAccountId(accountId);
    const revoked = await fetch(`${cluster.sandbox.url}/_sandbox/marketplace/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        partner_id: Number(cluster.secrets.marketplaceApps.marketplace.partnerId),
        shop_id: Number(connection!.external_account_ids[0]),
      }),
    });
    expect(revoked.status).toBe(200);
    expect(await marketRead(created.body.secret, accountId, 'marketplace')).toEqual({
      status: 409,
      error: 'connection_needs_regrant',
    });

    // Connecting the same app and shop again (not from the connection) renews it too, with the same id.
    const again = await client.connectMarketplace('marketplace');
    expect(again.searchParams.get('connected')).toBe(accountId);
    expect(again.searchParams.get('regranted')).toBe('1');
    expect(await marketRead(created.body.secret, accountId, 'marketplace')).toEqual({ status: 200, error: '' });
    const list = await client.call<Connections>('GET', '/api/connections');
    expect(list.body.connections.map((c) => [c.account_id, c.status])).toEqual([[accountId, 'active']]);
  });

  it('counts each app against the allowance: a trial plan with one connection refuses the third new one', async () => {
    const client = new PortalClient();
    const { customerId, email } = await client.signUp();
    await fixtures.otherConnection(customerId, 'video-ads');
    expect((await client.connectMarketplace('marketplace')).searchParams.get('connected')).toMatch(/^acct_/);

    // Two sessions of the customer start the last two apps while one connection is still free.
    const second = new PortalClient();
    expect((await second.call('POST', '/api/auth/sign-in', { email, password: PASSWORD })).status).toBe(200);
    const pending = await second.call<{ authorization_url: string }>('POST', '/api/connections/grants', {
      provider: 'marketplace-affiliate',
    });
    expect(pending.status).toBe(201);
    expect((await client.connectMarketplace('marketplace-ads')).searchParams.get('connected')).toMatch(/^acct_/);

    // The allowance is full: a new grant does not start, and the one started earlier does not complete.
    const refused = await client.call<{ code: string; allowance: number; used: number }>(
      'POST',
      '/api/connections/grants',
      { provider: 'marketplace-affiliate' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'connection_limit_reached', allowance: 3, used: 3 });
    const authorize = new URL(pending.body.authorization_url);
    const html = await (await fetch(authorize)).text();
    const consent = await fetch(`${cluster.sandbox.url}${MARKET_AUTH}`, {
      method: 'POST',
      body: new URLSearchParams({
        ticket: /name="ticket" value="([^"]+)"/.exec(html)![1]!,
        shop_id: /name="shop_id" value="([^"]+)"/.exec(html)![1]!,
        action: 'authorize',
      }),
      redirect: 'manual',
    });
    const late = await second.followCallback(new URL(consent.headers.get('location')!));
    expect(late.searchParams.get('error')).toBe('connection_limit_reached');
    expect(late.searchParams.get('connected')).toBeNull();
    const list = await client.call<Connections>('GET', '/api/connections');
    expect(list.body.used).toBe(3);
    expect(list.body.connections.map((c) => c.provider).sort()).toEqual(
      ['marketplace', 'marketplace-ads', 'video-ads'].sort(),
    );
  });
});

describe('portal-api - search-ads (a key pair instead of a redirect)', () => {
  const CAMPAIGNS = '/v1/search-ads/api/v5/campaigns?limit=5';
  type Key = { pending_id: string; public_key_pem: string; api_users_url: string; expires_at: string };
  type Orgs = { orgs: { org_id: number; org_name: string; currency: string; time_zone: string }[] };
  type Connected = {
    account_id: string;
    regranted: boolean;
    connection: { account_id: string; provider: string; status: string; external_account_ids: string[] };
  };
  type ApiUser = { client_id: string; team_id: string; key_id: string; org_ids: number[] };

  /** What the customer does on the platform's page: an API user for the portal's public key. */
  async function registerApiUser(publicKeyPem: string): Promise<ApiUser> {
    const response = await fetch(`${cluster.sandbox.url}/_sandbox/search-ads/api-users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ public_key_pem: publicKeyPem }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as ApiUser;
  }

  /** The full JSON flow; every answer body is kept in `bodies` so the tests can look for the private key in them. */
  async function connectSearchAds(client: PortalClient, bodies: string[], accountId?: string) {
    const key = await client.call<Key>(
      'POST',
      '/api/connections/search-ads/keys',
      accountId ? { account_id: accountId } : {},
    );
    bodies.push(JSON.stringify(key.body));
    expect(key.status).toBe(201);
    expect(key.body.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/);
    expect(key.body.api_users_url).toBe(`${cluster.sandbox.url}/search-ads-auth/api-users`);
    const user = await registerApiUser(key.body.public_key_pem);
    const verified = await client.call<Orgs>('POST', '/api/connections/search-ads/verify', {
      pending_id: key.body.pending_id,
      client_id: user.client_id,
      team_id: user.team_id,
      key_id: user.key_id,
    });
    bodies.push(JSON.stringify(verified.body));
    expect(verified.status).toBe(200);
    expect(verified.body.orgs.map((org) => org.org_id).sort()).toEqual([...user.org_ids].sort());
    const org = verified.body.orgs[0]!;
    expect(org).toEqual({
      org_id: expect.any(Number),
      org_name: expect.any(String),
      currency: expect.any(String),
      time_zone: expect.any(String),
    });
    const connected = await client.call<Connected>('POST', '/api/connections/search-ads', {
      pending_id: key.body.pending_id,
      org_id: org.org_id,
    });
    bodies.push(JSON.stringify(connected.body));
    expect(connected.status).toBe(201);
    return { key: key.body, user, org, connected: connected.body };
  }

  async function campaigns(secret: string, accountId: string) {
    const response = await fetch(`${edge}${CAMPAIGNS}`, {
      headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown; error?: unknown } };
  }

  /** The base64 body of a PEM, on one line, and its 64-character lines (any of them would leak the key). */
  function pemPieces(pem: string): string[] {
    const lines = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
    return [lines.join(''), ...lines.filter((line) => line.length >= 32)];
  }

  it('connects an organization: the new account id answers campaigns with a key holding search-ads', async () => {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    const bodies: string[] = [];
    const { connected, org } = await connectSearchAds(client, bodies);
    expect(connected.account_id).toMatch(/^acct_[0-9A-Za-z]{20}$/);
    expect(connected.regranted).toBe(false);
    expect(connected.connection).toMatchObject({
      account_id: connected.account_id,
      provider: 'search-ads',
      status: 'active',
      external_account_ids: [String(org.org_id)],
    });
    const list = await client.call<{ connections: { account_id: string }[]; used: number }>('GET', '/api/connections');
    bodies.push(JSON.stringify(list.body));
    expect(list.body.connections.map((c) => c.account_id)).toEqual([connected.account_id]);
    expect(list.body.used).toBe(1);

    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'search ads',
      providers: ['search-ads'],
      account_ids: [connected.account_id],
    });
    expect(created.status).toBe(201);
    const answer = await campaigns(created.body.secret, connected.account_id);
    // The whole answer, so that a failure shows the gateway's error code, not only its status.
    expect(answer).toMatchObject({ status: 200 });
    expect(Array.isArray(answer.body.data)).toBe(true);

    // The private key is in no answer of the flow, and is stored sealed (the raw document is ciphertext).
    const stored = await fixtures.store.connections.loadCredentials(connected.account_id);
    const privateKey = stored!.attributes!['private_key']!;
    expect(privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(stored!.attributes).toMatchObject({ org_id: String(org.org_id) });
    for (const body of bodies) {
      expect(body).not.toContain('PRIVATE KEY');
      for (const piece of pemPieces(privateKey)) expect(body).not.toContain(piece);
    }
    const db = fixtures.store.connection.db!;
    const raw = JSON.stringify(await db.collection('connections').findOne({ account_id: connected.account_id }));
    expect(raw).not.toContain('PRIVATE KEY');
    for (const piece of pemPieces(privateKey)) expect(raw).not.toContain(piece);
    expect(raw).not.toContain(stored!.access_token);
    // The pending key was used once and is gone; nothing of the customer's keys is left in clear anywhere.
    expect(await db.collection('portal_search_ads_keys').countDocuments({ customer_id: customerId })).toBe(0);
  });

  it('keeps the pending private key sealed, and a pending key makes one connection only', async () => {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    const key = await client.call<Key>('POST', '/api/connections/search-ads/keys', {});
    const db = fixtures.store.connection.db!;
    const pending = JSON.stringify(
      await db.collection('portal_search_ads_keys').find({ customer_id: customerId }).toArray(),
    );
    expect(pending).toContain(customerId);
    expect(pending).not.toContain('PRIVATE KEY');
    expect(pending).not.toContain(key.body.pending_id);

    // Another customer cannot use this pending key.
    const user = await registerApiUser(key.body.public_key_pem);
    const ids = { client_id: user.client_id, team_id: user.team_id, key_id: user.key_id };
    const mallory = new PortalClient();
    await mallory.signUp();
    const stolen = await mallory.call<{ code: string }>('POST', '/api/connections/search-ads/verify', {
      pending_id: key.body.pending_id,
      ...ids,
    });
    expect(stolen.status).toBe(404);

    const verified = await client.call<Orgs>('POST', '/api/connections/search-ads/verify', {
      pending_id: key.body.pending_id,
      ...ids,
    });
    const body = { pending_id: key.body.pending_id, org_id: verified.body.orgs[0]!.org_id };
    expect((await client.call('POST', '/api/connections/search-ads', body)).status).toBe(201);
    const again = await client.call<{ code: string }>('POST', '/api/connections/search-ads', body);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
    const list = await client.call<{ connections: unknown[] }>('GET', '/api/connections');
    expect(list.body.connections).toHaveLength(1);
  });

  it('refuses a wrong key id, or ids of an API user with another public key, with a clear error', async () => {
    const client = new PortalClient();
    await client.signUp();
    const key = await client.call<Key>('POST', '/api/connections/search-ads/keys', {});
    const user = await registerApiUser(key.body.public_key_pem);
    const wrongKeyId = await client.call<{ code: string; detail: string; status: number }>(
      'POST',
      '/api/connections/search-ads/verify',
      { pending_id: key.body.pending_id, client_id: user.client_id, team_id: user.team_id, key_id: randomUUID() },
    );
    expect(wrongKeyId.status).toBe(422);
    expect(wrongKeyId.headers.get('content-type')).toContain('application/problem+json');
    expect(wrongKeyId.body.code).toBe('api_user_refused');
    expect(wrongKeyId.body.detail).toMatch(/client id, team id and key id/);
    expect(wrongKeyId.body.detail).toMatch(/public key/);

    // The ids of an API user registered with another key: the portal's key does not match them.
    const other = await client.call<Key>('POST', '/api/connections/search-ads/keys', {});
    const otherUser = await registerApiUser(other.body.public_key_pem);
    const mismatch = await client.call<{ code: string }>('POST', '/api/connections/search-ads/verify', {
      pending_id: key.body.pending_id,
      client_id: otherUser.client_id,
      team_id: otherUser.team_id,
      key_id: otherUser.key_id,
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.code).toBe('api_user_refused');

    // Not verified: no connection can be made.
    const early = await client.call<{ code: string }>('POST', '/api/connections/search-ads', {
      pending_id: key.body.pending_id,
      org_id: user.org_ids[0],
    });
    expect(early.status).toBe(400);
    const list = await client.call<{ connections: unknown[] }>('GET', '/api/connections');
    expect(list.body.connections).toEqual([]);
    // The redirect flow says where the key-pair flow is.
    const redirect = await client.call<{ code: string; detail: string }>('POST', '/api/connections/grants', {
      provider: 'search-ads',
    });
    expect(redirect.status).toBe(422);
    expect(redirect.body.detail).toContain('/api/connections/search-ads/keys');
  });

  it('re-grants with a new key pair and keeps the account id; another organization is refused', async () => {
    const client = new PortalClient();
    await client.signUp();
    const first = await connectSearchAds(client, []);
    const accountId = first.connected.account_id;
    await fixtures.store.connections.setStatus(accountId, 'needs_regrant');

    const bodies: string[] = [];
    const again = await connectSearchAds(client, bodies, accountId);
    expect(again.connected.account_id).toBe(accountId);
    expect(again.connected.regranted).toBe(true);
    expect(again.connected.connection.status).toBe('active');
    const stored = await fixtures.store.connections.loadCredentials(accountId);
    expect(stored!.attributes).toMatchObject({ client_id: again.user.client_id, key_id: again.user.key_id });
    for (const body of bodies) expect(body).not.toContain('PRIVATE KEY');

    // The old API user is gone at the platform: the connection uses the new key.
    await fetch(`${cluster.sandbox.url}/_sandbox/search-ads/api-users/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: first.user.client_id }),
    });
    const created = await client.call<{ secret: string }>('POST', '/api/keys', {
      name: 'regranted',
      providers: ['search-ads'],
      account_ids: [accountId],
    });
    expect(await campaigns(created.body.secret, accountId)).toMatchObject({ status: 200 });
    const list = await client.call<{ connections: unknown[]; used: number }>('GET', '/api/connections');
    expect(list.body.used).toBe(1);

    // A re-grant must stay on the connection's organization.
    const key = await client.call<Key>('POST', '/api/connections/search-ads/keys', { account_id: accountId });
    const user = await registerApiUser(key.body.public_key_pem);
    const orgs = await client.call<Orgs>('POST', '/api/connections/search-ads/verify', {
      pending_id: key.body.pending_id,
      client_id: user.client_id,
      team_id: user.team_id,
      key_id: user.key_id,
    });
    const otherOrg = orgs.body.orgs.find(
      (org) => String(org.org_id) !== first.connected.connection.external_account_ids[0],
    );
    if (otherOrg !== undefined) {
      const refused = await client.call<{ code: string }>('POST', '/api/connections/search-ads', {
        pending_id: key.body.pending_id,
        org_id: otherOrg.org_id,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('other_account');
    }
  });
});

describe('portal-api - keys', () => {
  async function customerWithConnection() {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    const accountId = (await client.connectVideoAds()).searchParams.get('connected')!;
    return { client, customerId, accountId };
  }

  it('creates a key shown once, lists it without the secret, and the key works on REST at once', async () => {
    const { client, accountId } = await customerWithConnection();
    const created = await client.call<{ key: { key_id: string; source: string }; secret: string }>(
      'POST',
      '/api/keys',
      { name: 'reporting', providers: ['video-ads'], account_ids: [accountId] },
    );
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^dg_live_[0-9A-Za-z]{40}$/);
    expect(created.body.key.source).toBe('portal');
    expect(await rest(created.body.secret)).toEqual({ status: 200, code: 0 });

    const list = await client.call<{ keys: Record<string, unknown>[] }>('GET', '/api/keys');
    expect(list.body.keys).toEqual([
      expect.objectContaining({
        key_id: created.body.key.key_id,
        name: 'reporting',
        source: 'portal',
        status: 'active',
        account_ids: [accountId],
      }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(list.body.keys[0]).not.toHaveProperty('secret');
    expect(list.body.keys[0]).not.toHaveProperty('hash');
  });

  it('validates a new key: name, providers, foreign accounts, bad CIDRs, providers outside the plan', async () => {
    const { client, customerId } = await customerWithConnection();
    const empty = await client.call<{ errors: { path: string }[] }>('POST', '/api/keys', { name: '', providers: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((error) => error.path).sort()).toEqual(['name', 'providers']);

    const stranger = await fixtures.customer();
    const foreign = await fixtures.otherConnection(stranger.customer_id, 'marketplace');
    const foreignKey = await client.call('POST', '/api/keys', {
      name: 'x',
      providers: ['marketplace'],
      account_ids: [foreign],
    });
    expect(foreignKey.status).toBe(400);
    const badCidr = await client.call<{ errors: { path: string }[] }>('POST', '/api/keys', {
      name: 'x',
      providers: ['video-ads'],
      ip_allowlist: ['10.0.0.0/33'],
    });
    expect(badCidr.status).toBe(400);
    expect(badCidr.body.errors[0]?.path).toBe('ip_allowlist');

    await fixtures.setPlan('growth', { providers: ['video-ads'] });
    await fixtures.store.customers.setPlan(customerId, 'growth');
    const outside = await client.call<{ code: string }>('POST', '/api/keys', { name: 'x', providers: ['search-ads'] });
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('provider_not_in_plan');
  });

  it('rotates: the new key is shown once and works, the old one is refused immediately', async () => {
    const { client, accountId } = await customerWithConnection();
    const created = await client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
      name: 'rotating',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    expect((await rest(created.body.secret)).status).toBe(200);
    const rotated = await client.call<{
      key: { key_id: string; name: string };
      secret: string;
      replaced_key_id: string;
    }>('POST', `/api/keys/${created.body.key.key_id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.replaced_key_id).toBe(created.body.key.key_id);
    expect(rotated.body.key.name).toBe('rotating');
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(await rest(created.body.secret)).toEqual({ status: 401, code: 'key_revoked' });
    expect(await rest(rotated.body.secret)).toEqual({ status: 200, code: 0 });
    const again = await client.call('POST', `/api/keys/${created.body.key.key_id}/rotate`);
    expect(again.status).toBe(404);
  });

  it('revokes: REST refuses the key from the moment the portal answers', async () => {
    const { client, accountId } = await customerWithConnection();
    const created = await client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
      name: 'revoking',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    expect((await rest(created.body.secret)).status).toBe(200);
    const revoked = await client.call<{ key: { status: string; revoked_at: string } }>(
      'POST',
      `/api/keys/${created.body.key.key_id}/revoke`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.key.status).toBe('revoked');
    expect(await rest(created.body.secret)).toEqual({ status: 401, code: 'key_revoked' });
  });

  it('edits the IP allowlist, effective at once on REST', async () => {
    const { client, accountId } = await customerWithConnection();
    const created = await client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
      name: 'ip',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    const path = `/api/keys/${created.body.key.key_id}/ip-allowlist`;
    const narrowed = await client.call<{ key: { ip_allowlist: string[] } }>('PUT', path, {
      ip_allowlist: ['10.1.2.3', '2001:db8::/32'],
    });
    expect(narrowed.body.key.ip_allowlist).toEqual(['10.1.2.3/32', '2001:db8::/32']);
    expect(await rest(created.body.secret)).toEqual({ status: 403, code: 'ip_not_allowed' });
    await client.call('PUT', path, { ip_allowlist: ['127.0.0.0/8'] });
    expect((await rest(created.body.secret)).status).toBe(200);
    expect((await client.call('PUT', path, { ip_allowlist: ['nope'] })).status).toBe(400);
  });

  it("answers 404 for another customer's key and 401 without a session", async () => {
    const owner = await customerWithConnection();
    const created = await owner.client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
      name: 'mine',
      providers: ['video-ads'],
      account_ids: [owner.accountId],
    });
    const intruder = new PortalClient();
    await intruder.signUp();
    for (const action of ['rotate', 'revoke']) {
      const answer = await intruder.call<{ code: string }>('POST', `/api/keys/${created.body.key.key_id}/${action}`);
      expect({ action, status: answer.status }).toEqual({ action, status: 404 });
    }
    expect(
      (await intruder.call('PUT', `/api/keys/${created.body.key.key_id}/ip-allowlist`, { ip_allowlist: [] })).status,
    ).toBe(404);
    expect((await new PortalClient().call('GET', '/api/keys')).status).toBe(401);
    expect(await rest(created.body.secret)).toMatchObject({ status: 200 });
  });
});

describe('portal-api - editing keys (issue 15)', () => {
  interface Key {
    key_id: string;
    name: string;
    providers: string[];
    account_ids: string[];
    follows_connections: boolean;
    ip_allowlist: string[];
  }

  async function customerWithConnection() {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    const accountId = (await client.connectVideoAds()).searchParams.get('connected')!;
    return { client, customerId, accountId };
  }

  async function newKey(client: PortalClient, body: Record<string, unknown>) {
    const created = await client.call<{ key: Key; secret: string }>('POST', '/api/keys', body);
    expect(created.status).toBe(201);
    return created.body;
  }

  it('renames a key and adds a connection granted later, usable on the next REST request', async () => {
    const { client, accountId } = await customerWithConnection();
    const { key, secret } = await newKey(client, {
      name: 'before',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    expect(key.follows_connections).toBe(false);
    const later = (await client.connectVideoAds('/api/connections/grants', 1)).searchParams.get('connected')!;
    expect(later).not.toBe(accountId);
    expect(await rest(secret, { 'X-Account-Id': later })).toEqual({ status: 403, code: 'account_not_allowed' });

    const edited = await client.call<{ key: Key }>('PATCH', `/api/keys/${key.key_id}`, {
      name: '  after  ',
      account_ids: [accountId, later],
    });
    expect(edited.status).toBe(200);
    expect(edited.body.key).toMatchObject({ name: 'after', account_ids: [accountId, later], providers: ['video-ads'] });
    expect(await rest(secret, { 'X-Account-Id': later })).toEqual({ status: 200, code: 0 });
    expect(await rest(secret, { 'X-Account-Id': accountId })).toEqual({ status: 200, code: 0 });
    expect(await rest(secret)).toEqual({ status: 400, code: 'missing_account_id' });
    const list = await client.call<{ keys: Key[] }>('GET', '/api/keys');
    expect(list.body.keys[0]).toMatchObject({ key_id: key.key_id, name: 'after', account_ids: [accountId, later] });

    // Narrowed back to one connection: the other is refused on the next request.
    await client.call('PATCH', `/api/keys/${key.key_id}`, { account_ids: [later] });
    expect(await rest(secret, { 'X-Account-Id': accountId })).toEqual({ status: 403, code: 'account_not_allowed' });
    expect(await rest(secret)).toEqual({ status: 200, code: 0 });
  });

  it('takes a provider off a key: the next request is 403 provider_not_in_plan', async () => {
    const { client, accountId } = await customerWithConnection();
    const { key, secret } = await newKey(client, {
      name: 'two providers',
      providers: ['video-ads', 'marketplace'],
      account_ids: [accountId],
      ip_allowlist: ['127.0.0.0/8'],
    });
    expect(await rest(secret)).toEqual({ status: 200, code: 0 });
    const edited = await client.call<{ key: Key }>('PATCH', `/api/keys/${key.key_id}`, { providers: ['marketplace'] });
    expect(edited.status).toBe(200);
    // The provider's connections leave with it; the other settings stay.
    expect(edited.body.key).toMatchObject({
      providers: ['marketplace'],
      account_ids: [],
      ip_allowlist: ['127.0.0.0/8'],
    });
    expect(await rest(secret)).toEqual({ status: 403, code: 'provider_not_in_plan' });

    await client.call('PATCH', `/api/keys/${key.key_id}`, { providers: ['video-ads'], account_ids: [accountId] });
    expect(await rest(secret)).toEqual({ status: 200, code: 0 });
    await client.call('PATCH', `/api/keys/${key.key_id}`, { ip_allowlist: ['10.0.0.0/8'] });
    expect(await rest(secret)).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('validates an edit like a new key, and edits only active keys of the customer', async () => {
    const { client, customerId, accountId } = await customerWithConnection();
    const { key } = await newKey(client, { name: 'strict', providers: ['video-ads'], account_ids: [accountId] });
    const path = `/api/keys/${key.key_id}`;
    const unknownField = await client.call<{ code: string }>('PATCH', path, { status: 'revoked' });
    expect([unknownField.status, unknownField.body.code]).toEqual([400, 'invalid_request']);
    const empty = await client.call<{ errors: { path: string }[] }>('PATCH', path, { name: '', providers: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((error) => error.path).sort()).toEqual(['name', 'providers']);
    const otherProvider = await client.call<{ errors: { path: string }[] }>('PATCH', path, {
      providers: ['marketplace'],
      account_ids: [accountId],
    });
    expect([otherProvider.status, otherProvider.body.errors[0]?.path]).toEqual([400, 'account_ids']);
    const stranger = await fixtures.customer();
    const foreign = await fixtures.otherConnection(stranger.customer_id, 'video-ads');
    expect((await client.call('PATCH', path, { account_ids: [foreign] })).status).toBe(400);
    const badCidr = await client.call<{ errors: { path: string }[] }>('PATCH', path, { ip_allowlist: ['10.0.0.0/33'] });
    expect([badCidr.status, badCidr.body.errors[0]?.path]).toEqual([400, 'ip_allowlist']);
    const both = await client.call('PATCH', path, { account_ids: [accountId], follows_connections: true });
    expect(both.status).toBe(400);

    await fixtures.setPlan('growth', { providers: ['video-ads'] });
    await fixtures.store.customers.setPlan(customerId, 'growth');
    const outside = await client.call<{ code: string }>('PATCH', path, { providers: ['search-ads'] });
    expect([outside.status, outside.body.code]).toEqual([403, 'provider_not_in_plan']);
    // Nothing of the refused edits was written.
    expect(await fixtures.store.apiKeys.findByKeyId(key.key_id)).toMatchObject({
      name: 'strict',
      providers: ['video-ads'],
      account_ids: [accountId],
      ip_allowlist: [],
    });

    const intruder = new PortalClient();
    await intruder.signUp();
    expect((await intruder.call('PATCH', path, { name: 'mine now' })).status).toBe(404);
    await client.call('POST', `${path}/revoke`);
    expect((await client.call('PATCH', path, { name: 'revoked' })).status).toBe(404);
  });

  it('lets an OAuth key use a connection granted after it was created, with no edit; narrowing stops that', async () => {
    const { client, customerId, accountId } = await customerWithConnection();
    // As the oauth-server makes it on consent (services/oauth-server/src/grant/oauth-key.service.ts).
    const { key, secret } = await fixtures.store.apiKeys.create({
      customer_id: customerId,
      name: 'Chat Assistant (OAuth)',
      providers: ['video-ads', 'marketplace'],
      account_ids: [accountId],
      follows_connections: true,
      source: 'oauth',
      oauth: { client_id: 'chat-assistant', subject: customerId },
    });
    await fixtures.lifecycle.created(key);
    expect(await rest(secret)).toEqual({ status: 200, code: 0 });

    const later = (await client.connectVideoAds('/api/connections/grants', 1)).searchParams.get('connected')!;
    expect(await rest(secret, { 'X-Account-Id': later })).toEqual({ status: 200, code: 0 });
    expect(await rest(secret)).toEqual({ status: 400, code: 'missing_account_id' });
    const listed = (await client.call<{ keys: Key[] }>('GET', '/api/keys')).body.keys[0]!;
    expect(listed).toMatchObject({ key_id: key.key_id, follows_connections: true, account_ids: [accountId, later] });

    // The customer narrows it in the portal: it stops following.
    const narrowed = await client.call<{ key: Key }>('PATCH', `/api/keys/${key.key_id}`, { account_ids: [accountId] });
    expect(narrowed.body.key).toMatchObject({ follows_connections: false, account_ids: [accountId] });
    expect(await rest(secret, { 'X-Account-Id': later })).toEqual({ status: 403, code: 'account_not_allowed' });
    expect(await rest(secret)).toEqual({ status: 200, code: 0 });
    const third = (await client.connectVideoAds('/api/connections/grants', 2)).searchParams.get('connected')!;
    expect(await rest(secret, { 'X-Account-Id': third })).toEqual({ status: 403, code: 'account_not_allowed' });

    // And makes it follow again.
    const following = await client.call<{ key: Key }>('PATCH', `/api/keys/${key.key_id}`, {
      follows_connections: true,
    });
    expect(following.body.key.follows_connections).toBe(true);
    expect(following.body.key.account_ids.sort()).toEqual([accountId, later, third].sort());
    for (const id of [accountId, later, third]) {
      expect(await rest(secret, { 'X-Account-Id': id })).toEqual({ status: 200, code: 0 });
    }
  });
});

describe('portal-api - plan and usage', () => {
  it("shows the customer's month against the shared quota and each key's share, rotated and revoked keys included", async () => {
    const client = new PortalClient();
    await client.signUp();
    const accountId = (await client.connectVideoAds()).searchParams.get('connected')!;
    const plan = await client.call<{ plan: Record<string, unknown>; connections_used: number }>('GET', '/api/plan');
    expect(plan.body.plan).toMatchObject({ name: 'trial', rate_limit_rps: 1000, monthly_quota: 10_000 });
    expect(plan.body.connections_used).toBe(1);

    const createKey = (name: string) =>
      client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
        name,
        providers: ['video-ads'],
        account_ids: [accountId],
      });
    const created = await createKey('usage');
    for (let i = 0; i < 3; i++) expect((await rest(created.body.secret)).status).toBe(200);
    const today = new Date().toISOString().slice(8, 10);
    type Usage = {
      month: string;
      monthly_quota: number;
      total: {
        used: number;
        suggestions_used: number;
        monthly_quota: number;
        suggestion_allowance: number;
        remaining: number;
      };
      keys: {
        key_id: string;
        name: string;
        status: string;
        quota_used: number;
        share: { used: number; share_percent: number };
        days: { day: string; count: number }[];
      }[];
    };
    const usage = await waitForUsage(client, 3);
    expect(usage.month).toBe(new Date().toISOString().slice(0, 7));
    expect(usage.monthly_quota).toBe(10_000);
    expect(usage.total).toEqual({
      used: 3,
      suggestions_used: 0,
      monthly_quota: 10_000,
      suggestion_allowance: 50,
      remaining: 9_997,
    });
    expect(usage.keys).toEqual([
      {
        key_id: created.body.key.key_id,
        name: 'usage',
        status: 'active',
        quota_used: 3,
        share: { used: 3, share_percent: 100 },
        days: [{ day: today, count: 3 }],
      },
    ]);

    // Rotation: the old key keeps its units (listed as rotated), the new key's share is only its own.
    const rotated = await client.call<{ key: { key_id: string }; secret: string }>(
      'POST',
      `/api/keys/${created.body.key.key_id}/rotate`,
    );
    expect((await rest(rotated.body.secret)).status).toBe(200);
    // A second key, used twice and then revoked: its units stay spent.
    const other = await createKey('revoked later');
    for (let i = 0; i < 2; i++) expect((await rest(other.body.secret)).status).toBe(200);
    await waitForUsage(client, 6);
    expect((await client.call('POST', `/api/keys/${other.body.key.key_id}/revoke`)).status).toBe(200);
    // A key that was never used is listed while active, and not once revoked.
    const idle = await createKey('idle');
    expect((await client.call('POST', `/api/keys/${idle.body.key.key_id}/revoke`)).status).toBe(200);

    const after = await waitForUsage(client, 6);
    expect(after.total).toMatchObject({ used: 6, remaining: 9_994 });
    expect(after.keys).toEqual([
      {
        key_id: created.body.key.key_id,
        name: 'usage',
        status: 'rotated',
        quota_used: 3,
        share: { used: 3, share_percent: 50 },
        days: [{ day: today, count: 3 }],
      },
      {
        key_id: rotated.body.key.key_id,
        name: 'usage',
        status: 'active',
        quota_used: 1,
        share: { used: 1, share_percent: 16.7 },
        days: [{ day: today, count: 1 }],
      },
      {
        key_id: other.body.key.key_id,
        name: 'revoked later',
        status: 'revoked',
        quota_used: 2,
        share: { used: 2, share_percent: 33.3 },
        days: [{ day: today, count: 2 }],
      },
    ]);
    expect(after.keys.reduce((sum, key) => sum + key.share.used, 0)).toBe(after.total.used);

    // Another month: nothing counted, every share 0 (not a division by zero), only the active key listed.
    const empty = await client.call<Usage>('GET', '/api/usage?month=2024-02');
    expect(empty.status).toBe(200);
    expect(empty.body.total).toMatchObject({ used: 0, remaining: 10_000 });
    expect(empty.body.keys).toEqual([
      {
        key_id: rotated.body.key.key_id,
        name: 'usage',
        status: 'active',
        quota_used: 0,
        share: { used: 0, share_percent: 0 },
        days: [],
      },
    ]);
    const bad = await client.call('GET', '/api/usage?month=2024-13');
    expect(bad.status).toBe(400);

    async function waitForUsage(c: PortalClient, used: number): Promise<Usage> {
      // The actor writes counts to MongoDB every second (USAGE_FLUSH_MS of this cluster). The deadline only bounds
      // the wait for that write: a busy machine may need several flushes.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const answer = await c.call<Usage>('GET', '/api/usage');
        expect(answer.status).toBe(200);
        const days = answer.body.keys.reduce((total, key) => total + key.days.reduce((s, d) => s + d.count, 0), 0);
        if ((answer.body.total.used === used && days === used) || Date.now() > deadline) return answer.body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });

  it('shows the MCP and REST addresses', async () => {
    const client = new PortalClient();
    await client.signUp();
    const mcp = await client.call<{ mcp_url: string; rest_base_url: string }>('GET', '/api/mcp');
    expect(mcp.body.rest_base_url).toBe(edge);
    expect(mcp.body.mcp_url).toMatch(/^https?:\/\//);
  });
});

describe('portal-api - storage', () => {
  it('keeps no password, session id, key secret or platform token in clear in MongoDB', async () => {
    const client = new PortalClient();
    const { customerId } = await client.signUp();
    const accountId = (await client.connectVideoAds()).searchParams.get('connected')!;
    const created = await client.call<{ key: { key_id: string }; secret: string }>('POST', '/api/keys', {
      name: 'stored',
      providers: ['video-ads'],
      account_ids: [accountId],
    });
    const rotated = await client.call<{ secret: string }>('POST', `/api/keys/${created.body.key.key_id}/rotate`);
    const sessionId = client.cookies.get('dg_session')!;
    expect(sessionId).toBeDefined();

    const db = fixtures.store.connection.db!;
    const dump: string[] = [];
    for (const { name } of await db.listCollections().toArray()) {
      for (const doc of await db.collection(name).find({}).toArray()) dump.push(JSON.stringify(doc));
    }
    const everything = dump.join('\n');
    expect(everything).toContain(customerId);
    for (const secret of [PASSWORD, sessionId, created.body.secret, rotated.body.secret]) {
      expect(everything).not.toContain(secret);
    }
    const customer = await db.collection('customers').findOne({ customer_id: customerId });
    expect(customer?.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(await db.collection('portal_sessions').countDocuments({ customer_id: customerId })).toBe(1);
    const connection = await db.collection('connections').findOne({ account_id: accountId });
    expect(JSON.stringify(connection)).not.toContain('access_token');
  });
});
