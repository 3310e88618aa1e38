import {
  GatewayFixtures,
  parsePrometheusText,
  startGatewayCluster,
  startService,
  type GatewayCluster,
  type RunningService,
  withFreePort,
} from '@gateway/testing';
import { createHash, randomBytes } from 'node:crypto';
import { testDatabaseUri, testNatsUrl } from './harness';
import { OtlpCollector, SecretBook, type Material } from './harness/secret-scan';

/**
 * Secrets stay secret: REST, MCP, OAuth and portal traffic against real processes with tracing exported to an
 * OTLP receiver started here, short-lived platform tokens renewed during the run; then every service's log lines,
 * every exported span (attributes, events, resource), every metric series and every error body the test received
 * are searched for every secret the run handed out or used: API keys, platform access and refresh tokens, app
 * secrets and partner keys, the search-ads private key, OAuth codes, verifiers and tokens, portal passwords and
 * sessions, the credentials keyring. None may appear.
 */
jest.setTimeout(150_000);

const TOKEN_TTL_MS = 3_000;
const RENEW_AHEAD_MS = 1_000;
const RENEWAL_LOAD_MS = 7_000;
const CHAT = 'chat-assistant';
const CHAT_CALLBACK = 'https://chat.assistant.test/api/mcp/auth_callback';
const ADVERTISERS = '/v1.3/oauth2/advertiser/get/';

const otlp = new OtlpCollector();
const secrets = new SecretBook();
const logLines: { service: string; line: string }[] = [];
const errorBodies: Material[] = [];
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let oauth: RunningService;
let mcp: RunningService;
let portal: RunningService;
let mcpUrl: string;
let mongoUri: string;

function otelEnv(): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    LOG_LEVEL: 'debug',
  };
}

beforeAll(async () => {
  await otlp.start();
  mongoUri = testDatabaseUri();
  const env = otelEnv();
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    preloadTelemetry: true,
    onLine: (service, line) => logLines.push({ service, line }),
    sandboxEnv: {
      SANDBOX_VIDEO_SHOP_ACCESS_TOKEN_TTL_MS: String(TOKEN_TTL_MS),
      SANDBOX_MARKETPLACE_ACCESS_TOKEN_TTL_MS: String(TOKEN_TTL_MS),
      SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S: String(TOKEN_TTL_MS / 1000),
    },
    proxyEnv: {
      ...env,
      VIDEO_SHOP_RENEW_AHEAD_MS: String(RENEW_AHEAD_MS),
      MARKETPLACE_RENEW_AHEAD_MS: String(RENEW_AHEAD_MS),
      SEARCH_ADS_RENEW_AHEAD_MS: String(RENEW_AHEAD_MS),
      CREDENTIAL_CACHE_TTL_MS: '500',
      RENEWAL_LEASE_TTL_MS: '1500',
    },
    actorEnv: env,
    edgeEnv: env,
  });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  for (const plan of ['trial', 'growth'] as const) {
    await fixtures.setPlan(plan, {
      rate_limit_rps: 10_000,
      rate_burst: 10_000,
      monthly_quota: 1_000_000,
      suggestion_allowance: 100,
    });
  }

  // oauth-server and mcp-server name each other (as test/harness/oauth-stack.ts does), here with tracing and logs.
  const oauthSigningKey = randomBytes(24).toString('hex');
  secrets.add('OAUTH_SIGNING_KEYS', oauthSigningKey);
  const startOauthAndMcp = async (mcpPort: number) => {
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    oauth = await startService(
      'oauth-server',
      {
        ...env,
        NODE_ENV: 'test',
        MONGODB_URI: mongoUri,
        NATS_URL: testNatsUrl(),
        PARTITIONS: cluster.sharedEnv.PARTITIONS!,
        SUBJECT_PREFIX: cluster.sharedEnv.SUBJECT_PREFIX!,
        MCP_RESOURCE_URL: mcpUrl,
        OAUTH_SIGNING_KEYS: oauthSigningKey,
        CHAT_ASSISTANT_CLIENT_ID: CHAT,
        CHAT_ASSISTANT_REDIRECT_URIS: CHAT_CALLBACK,
      },
      {
        listeners: ['http'],
        timeoutMs: 60_000,
        preloadTelemetry: true,
        onLine: (line) => logLines.push({ service: 'oauth-server', line }),
      },
    );
    try {
      mcp = await cluster.startMcp({
        ...env,
        PORT: String(mcpPort),
        AUTHORIZATION_SERVER_URL: oauth.url,
        MONGODB_URI: mongoUri,
        OAUTH_TOKEN_CACHE_MS: '0',
      });
    } catch (error) {
      await oauth.stop();
      throw error;
    }
  };
  await withFreePort(startOauthAndMcp);
  portal = await cluster.startPortal({ ...env, MCP_URL: mcpUrl });
}, 150_000);

afterAll(async () => {
  await oauth?.stop();
  await fixtures?.close();
  await cluster?.stop();
  otlp.close();
});

/** fetch that keeps the body (and headers) of every answer of 400 or more as material to scan. */
async function call(
  what: string,
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers; json<T = Record<string, unknown>>(): T }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  if (response.status >= 400) {
    errorBodies.push({
      source: `error body: ${what} -> ${response.status}`,
      text: `${JSON.stringify(Object.fromEntries(response.headers))}\n${text}`,
    });
  }
  return { status: response.status, text, headers: response.headers, json: <T>() => JSON.parse(text) as T };
}

function rest(what: string, path: string, headers: Record<string, string>) {
  return call(`REST ${what}`, `${cluster.edges[0]!.url}${path}`, { headers });
}

/** One JSON-RPC message over Streamable HTTP; JSON-RPC errors and tool errors are kept as error bodies too. */
async function rpc(bearer: string, method: string, params: Record<string, unknown> = {}) {
  const answer = await call(`MCP ${method}`, mcpUrl, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${bearer}`,
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  if (answer.status >= 400) return { status: answer.status, message: undefined };
  const json = answer.headers.get('content-type')?.includes('text/event-stream')
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('')
    : answer.text;
  const message = JSON.parse(json) as { result?: { isError?: boolean }; error?: unknown };
  if (message.error || message.result?.isError) {
    errorBodies.push({ source: `error body: MCP ${method} ${JSON.stringify(params).slice(0, 80)}`, text: json });
  }
  return { status: answer.status, message };
}

/** A browser against portal-api: cookies, CSRF header on state changes. */
class PortalBrowser {
  readonly cookies = new Map<string, string>();

  async call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = {};
    if (method !== 'GET') headers['x-csrf-token'] = await this.csrf();
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.send(method, path, headers, body);
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const answer = await call(`portal ${method} ${path.split('?')[0]}`, new URL(path, portal.url).toString(), {
      method,
      headers: { ...headers, ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return answer;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async csrf(): Promise<string> {
    const existing = this.cookies.get('dg_csrf');
    if (existing) return existing;
    return (await this.send('GET', '/api/csrf', {})).json<{ csrf_token: string }>().csrf_token;
  }

  /** The callback URL the platform sent the browser to, followed in this session. */
  async followCallback(callback: URL) {
    return this.send('GET', `${callback.pathname}${callback.search}`, {});
  }
}

/** A browser against oauth-server's pages: cookies, Origin on form posts. */
class OAuthBrowser {
  private readonly cookies = new Map<string, string>();
  async request(url: string, form?: Record<string, string>) {
    const answer = await call(`oauth ${new URL(url).pathname}`, url, {
      method: form ? 'POST' : 'GET',
      headers: {
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: oauth.url } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      // The CSRF cookie is a double-submit token: its value is in the form by design, so it is no secret here.
      if (!/csrf/i.test(pair!.slice(0, eq)))
        secrets.add(`oauth-server cookie ${pair!.slice(0, eq)}`, pair!.slice(eq + 1));
    }
    return answer;
  }
}

function hidden(page: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no hidden field ${name} in: ${page.slice(0, 300)}`);
  return match[1]!;
}

/** Values of credential-like fields in a query string, form or JSON body, or header set. */
function credentialValues(fields: Record<string, unknown>): [string, string][] {
  const found: [string, string][] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || value.length < 12) continue;
    if (!/token|secret|assertion|password|authorization|partner_key|^code$|auth_code/i.test(name)) continue;
    found.push([name, value.replace(/^Bearer /i, '')]);
  }
  return found;
}

function parseBody(body: string): Record<string, unknown> {
  if (!body) return {};
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return Object.fromEntries(new URLSearchParams(body));
  }
}

describe('secrets stay secret (logs, spans, metrics, error bodies)', () => {
  it('no secret of a varied REST, MCP, OAuth and portal run appears in any output of any service', async () => {
    const s = cluster.secrets;
    secrets.add('video-ads app secret', s.appSecret);
    secrets.add('video-shop app secret', s.shopAppSecret);
    for (const [provider, app] of Object.entries(s.marketplaceApps))
      secrets.add(`${provider} partner key`, app.partnerKey);
    secrets.add('credentials keyring', s.credentialsKeys);
    secrets.add('credentials key material', s.credentialsKeys.split(':')[1]);

    // ---- connections of all six providers, one key for them all ----
    const customer = await fixtures.customer('growth');
    const cid = customer.customer_id;
    const videoAds = await fixtures.videoAdsConnection(cid, 0);
    const revokedAds = await fixtures.videoAdsConnection(cid, 1);
    const shop = await fixtures.videoShopConnection(cid);
    const market = {
      marketplace: await fixtures.marketplaceConnection(cid, 'marketplace'),
      'marketplace-ads': await fixtures.marketplaceConnection(cid, 'marketplace-ads'),
      'marketplace-affiliate': await fixtures.marketplaceConnection(cid, 'marketplace-affiliate'),
    };
    const searchAds = await fixtures.searchAdsConnection(cid);
    secrets.add('video-ads access token', videoAds.token);
    secrets.add('video-ads access token (revoked grant)', revokedAds.token);
    secrets.add('video-shop access token', shop.accessToken);
    secrets.add('video-shop refresh token', shop.refreshToken);
    for (const [provider, connection] of Object.entries(market)) {
      secrets.add(`${provider} access token`, connection.accessToken);
      secrets.add(`${provider} refresh token`, connection.refreshToken);
    }
    secrets.add('search-ads access token', searchAds.accessToken);
    const searchAdsStored = await fixtures.store.connections.loadCredentials(searchAds.accountId);
    secrets.addPem('search-ads private key', searchAdsStored?.attributes?.private_key);

    const accountIds = [
      videoAds.accountId,
      revokedAds.accountId,
      shop.accountId,
      ...Object.values(market).map((connection) => connection.accountId),
      searchAds.accountId,
    ];
    const { secret: key } = await fixtures.key({
      customerId: cid,
      providers: ['video-ads', 'video-shop', 'marketplace', 'marketplace-ads', 'marketplace-affiliate', 'search-ads'],
      accountIds,
    });
    secrets.add('API key', key);
    const as = (accountId: string, extra: Record<string, string> = {}) => ({
      'X-API-Key': key,
      'X-Account-Id': accountId,
      ...extra,
    });
    const { lastSeq } = await fixtures.sandboxRequests();

    // ---- REST: successes on every provider, platform errors, refusals, caller-supplied credentials ----
    const statuses: Record<string, number> = {};
    const record = async (what: string, answer: Promise<{ status: number }>) => {
      statuses[what] = (await answer).status;
    };
    await record('video-ads ok', rest('video-ads', `/v1/video-ads${ADVERTISERS}`, as(videoAds.accountId)));
    await record(
      'video-ads platform error',
      rest('video-ads', '/v1/video-ads/v1.3/advertiser/info/?advertiser_ids=%5B%22nope%22%5D', as(videoAds.accountId)),
    );
    await record(
      'video-ads caller credentials dropped',
      rest(
        'video-ads',
        `/v1/video-ads${ADVERTISERS}?access_token=${revokedAds.token}&secret=${s.appSecret}`,
        as(videoAds.accountId, { 'Access-Token': revokedAds.token, Authorization: `Bearer ${shop.accessToken}` }),
      ),
    );
    await record(
      'video-ads path_not_allowed with a token in the query',
      rest(
        'path_not_allowed',
        `/v1/video-ads/v1.3/campaign/create/?access_token=${videoAds.token}&app_secret=${s.appSecret}`,
        as(videoAds.accountId),
      ),
    );
    await record(
      'video-shop path_not_allowed with tokens in the query',
      rest(
        'path_not_allowed',
        `/v1/video-shop/no/such/path?access_token=${shop.accessToken}&refresh_token=${shop.refreshToken}`,
        as(shop.accountId),
      ),
    );
    await record('video-shop ok', rest('video-shop', '/v1/video-shop/authorization/202309/shops', as(shop.accountId)));
    await record(
      'video-shop platform error',
      rest('video-shop', '/v1/video-shop/order/202309/orders/nope', as(shop.accountId)),
    );
    const marketReads = {
      marketplace: '/v1/marketplace/api/v2/shop/get_shop_info',
      'marketplace-ads': '/v1/marketplace-ads/api/v2/ads/get_total_balance',
      'marketplace-affiliate':
        '/v1/marketplace-affiliate/api/v2/ams/get_performance_data_update_time?marker_type=AmsMarker',
    };
    for (const [provider, path] of Object.entries(marketReads)) {
      const connection = market[provider as keyof typeof market];
      await record(`${provider} ok`, rest(provider, path, as(connection.accountId)));
      await record(
        `${provider} path_not_allowed with tokens`,
        rest(
          provider,
          `/v1/${provider}/api/v2/auth/token/get?refresh_token=${connection.refreshToken}&partner_key=${s.marketplaceApps.marketplace.partnerKey}`,
          as(connection.accountId),
        ),
      );
    }
    await record(
      'marketplace platform error',
      rest(
        'marketplace',
        '/v1/marketplace/api/v2/order/get_order_detail?order_sn_list=nope',
        as(market.marketplace.accountId),
      ),
    );
    await record('search-ads ok', rest('search-ads', '/v1/search-ads/api/v5/acls', as(searchAds.accountId)));
    await record(
      'search-ads platform error',
      rest(
        'search-ads',
        '/v1/search-ads/api/v5/campaigns/999999999999',
        as(searchAds.accountId, {
          Authorization: `Bearer ${searchAds.accessToken}`,
        }),
      ),
    );
    const unknownKey = `dg_live_${randomBytes(30).toString('base64url').slice(0, 40)}`;
    secrets.add('unknown API key sent by a caller', unknownKey);
    await record('unknown key', rest('unknown key', `/v1/video-ads${ADVERTISERS}`, { 'X-API-Key': unknownKey }));
    const malformedKey = `not-a-key-${randomBytes(16).toString('hex')}`;
    secrets.add('malformed API key sent by a caller', malformedKey);
    await record('malformed key', rest('malformed key', `/v1/video-ads${ADVERTISERS}`, { 'X-API-Key': malformedKey }));
    await record(
      'key as bearer on REST',
      rest('bearer key', `/v1/video-ads${ADVERTISERS}`, { Authorization: `Bearer ${key}` }),
    );
    await record(
      'foreign account',
      rest('foreign account', `/v1/video-ads${ADVERTISERS}`, as('acct_00000000000000000000')),
    );
    for (const advertiserId of revokedAds.advertiserIds) {
      await fetch(`${cluster.sandbox.url}/_sandbox/tokens/revoke`, {
        method: 'POST',
        body: JSON.stringify({ advertiser_id: advertiserId }),
      });
    }
    await record('revoked grant', rest('revoked grant', `/v1/video-ads${ADVERTISERS}`, as(revokedAds.accountId)));
    expect(statuses).toMatchObject({
      'video-ads ok': 200,
      'video-ads caller credentials dropped': 200,
      'video-ads path_not_allowed with a token in the query': 403,
      'video-shop path_not_allowed with tokens in the query': 403,
      'video-shop ok': 200,
      'marketplace ok': 200,
      'marketplace-ads ok': 200,
      'marketplace-affiliate ok': 200,
      'search-ads ok': 200,
      'unknown key': 401,
      'malformed key': 401,
      'revoked grant': 409,
    });

    // ---- MCP with the key as bearer: list, describe, find, call (ok, platform error, refused, with secrets) ----
    await rpc(key, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'secrets-test', version: '1' },
    });
    const tools = await rpc(key, 'tools/list');
    expect(tools.status).toBe(200);
    const tool = (name: string, args: Record<string, unknown> = {}) =>
      rpc(key, 'tools/call', { name, arguments: args });
    expect((await tool('list_endpoints')).status).toBe(200);
    await tool('describe_endpoint', { provider: 'video-ads', path: ADVERTISERS });
    await tool('find_endpoint', { question: `which shops can I read? my token is ${shop.accessToken}` });
    const called = await tool('call_endpoint', {
      provider: 'video-ads',
      path: ADVERTISERS,
      account_id: videoAds.accountId,
    });
    expect(called.message?.result?.isError).toBeFalsy();
    await tool('call_endpoint', {
      provider: 'video-shop',
      path: '/authorization/202309/shops',
      account_id: shop.accountId,
      params: { access_token: shop.accessToken, app_secret: s.shopAppSecret },
    });
    await tool('call_endpoint', {
      provider: 'video-ads',
      path: '/v1.3/campaign/create/',
      account_id: videoAds.accountId,
      params: { access_token: videoAds.token },
    });
    await tool('call_endpoint', { provider: 'video-ads', path: ADVERTISERS, account_id: revokedAds.accountId });
    await tool('call_endpoint', {
      provider: 'search-ads',
      path: '/api/v5/campaigns/999999999999',
      account_id: searchAds.accountId,
    });
    await tool('check_quota');
    expect((await rpc(unknownKey, 'tools/list')).status).toBe(401);

    // ---- token renewals: access tokens live 3 s, renewed 1 s ahead, under load on every renewing provider ----
    const renewing = [
      ['video-shop', '/v1/video-shop/authorization/202309/shops', shop.accountId],
      ...Object.entries(marketReads).map(([provider, path]) => [
        provider,
        path,
        market[provider as keyof typeof market].accountId,
      ]),
      ['search-ads', '/v1/search-ads/api/v5/acls', searchAds.accountId],
    ] as const;
    const stopAt = Date.now() + RENEWAL_LOAD_MS;
    const renewalStatuses = new Map<string, number>();
    const worker = async (offset: number) => {
      for (let i = offset; Date.now() < stopAt; i++) {
        const [provider, path, accountId] = renewing[i % renewing.length]!;
        const answer = await rest(`renewal load ${provider}`, path, as(accountId));
        const status = `${provider} ${answer.status}`;
        renewalStatuses.set(status, (renewalStatuses.get(status) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await Promise.all([0, 1, 2].map(worker));

    // ---- portal: sign-up with a password, sign-out, bad and good sign-in, a grant, keys (one-time secrets) ----
    const password = `pw-${randomBytes(12).toString('hex')}`;
    secrets.add('portal password', password);
    const wrongPassword = `wrong-${randomBytes(12).toString('hex')}`;
    secrets.add('wrong password typed at sign-in', wrongPassword);
    const email = `s-${randomBytes(5).toString('hex')}@example.test`;
    const browser = new PortalBrowser();
    expect((await browser.call('POST', '/api/auth/sign-up', { name: 'Secret Keeper', email, password })).status).toBe(
      201,
    );
    await browser.call('POST', '/api/auth/sign-up', { name: 'Secret Keeper', email, password });
    await browser.call('POST', '/api/auth/sign-out');
    expect((await browser.call('POST', '/api/auth/sign-in', { email, password: wrongPassword })).status).toBe(401);
    expect((await browser.call('POST', '/api/auth/sign-in', { email, password })).status).toBe(200);
    for (const [name, value] of browser.cookies) if (!/csrf/i.test(name)) secrets.add(`portal cookie ${name}`, value);

    const started = await browser.call('POST', '/api/connections/grants', { provider: 'video-ads' });
    expect(started.status).toBe(201);
    const authorize = new URL(started.json<{ authorization_url: string }>().authorization_url);
    const page = await (await fetch(authorize)).text();
    const bcId = /name="bc_id" value="([^"]+)"/.exec(page)![1]!;
    const consent = await fetch(`${cluster.sandbox.url}/portal/auth`, {
      method: 'POST',
      body: new URLSearchParams({
        app_id: authorize.searchParams.get('app_id')!,
        state: authorize.searchParams.get('state')!,
        redirect_uri: authorize.searchParams.get('redirect_uri')!,
        bc_id: bcId,
        action: 'authorize',
      }),
      redirect: 'manual',
    });
    const callback = new URL(consent.headers.get('location')!);
    for (const [name, value] of credentialValues(Object.fromEntries(callback.searchParams)))
      secrets.add(`video-ads grant ${name} (portal flow)`, value);
    const back = await browser.followCallback(callback);
    const portalAccount = new URL(back.headers.get('location')!, portal.url).searchParams.get('connected')!;
    expect(portalAccount).toMatch(/^acct_/);
    await browser.followCallback(callback); // replayed callback: refused
    const created = await browser.call('POST', '/api/keys', {
      name: 'portal key',
      providers: ['video-ads'],
      account_ids: [portalAccount],
    });
    expect(created.status).toBe(201);
    const portalKey = created.json<{ secret: string; key: { key_id: string } }>();
    secrets.add('portal-created API key', portalKey.secret);

    // search-ads connect flow: the portal generates the key pair and must never show or log the private key.
    const pending = await browser.call('POST', '/api/connections/search-ads/keys', {});
    expect(pending.status).toBe(201);
    const { pending_id: pendingId, public_key_pem: publicKeyPem } = pending.json<{
      pending_id: string;
      public_key_pem: string;
    }>();
    secrets.add('portal search-ads pending id', pendingId);
    const apiUser = (await (
      await fetch(`${cluster.sandbox.url}/_sandbox/search-ads/api-users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ public_key_pem: publicKeyPem }),
      })
    ).json()) as { client_id: string; team_id: string; key_id: string; org_ids: number[] };
    const verified = await browser.call('POST', '/api/connections/search-ads/verify', {
      pending_id: pendingId,
      client_id: apiUser.client_id,
      team_id: apiUser.team_id,
      key_id: apiUser.key_id,
    });
    expect(verified.status).toBe(200);
    const searchConnected = await browser.call('POST', '/api/connections/search-ads', {
      pending_id: pendingId,
      org_id: apiUser.org_ids[0],
    });
    expect(searchConnected.status).toBe(201);
    const portalSearchAccount = searchConnected.json<{ account_id: string }>().account_id;
    const portalSearchCredentials = await fixtures.store.connections.loadCredentials(portalSearchAccount);
    secrets.addPem('portal-generated search-ads private key', portalSearchCredentials?.attributes?.private_key);
    secrets.add('portal search-ads access token', portalSearchCredentials?.access_token ?? '');
    await browser.call('POST', '/api/keys', { name: '', providers: ['nope'], account_ids: [videoAds.accountId] });
    expect((await rest('portal key', `/v1/video-ads${ADVERTISERS}`, { 'X-API-Key': portalKey.secret })).status).toBe(
      200,
    );
    const rotated = await browser.call('POST', `/api/keys/${portalKey.key.key_id}/rotate`);
    const rotatedKey = rotated.json<{ secret: string; key: { key_id: string } }>();
    secrets.add('rotated API key', rotatedKey.secret);
    expect(
      (await rest('rotated-away key', `/v1/video-ads${ADVERTISERS}`, { 'X-API-Key': portalKey.secret })).status,
    ).toBe(401);
    await browser.call('POST', `/api/keys/${rotatedKey.key.key_id}/revoke`);
    expect((await rest('revoked key', `/v1/video-ads${ADVERTISERS}`, { 'X-API-Key': rotatedKey.secret })).status).toBe(
      401,
    );
    await browser.call('GET', '/api/connections');
    await browser.call('GET', '/api/usage');
    await new PortalBrowser().call('GET', '/api/keys'); // no session

    // ---- OAuth: the portal customer signs in and consents; code, tokens, refresh, revoke, MCP with the token ----
    const verifier = randomBytes(48).toString('base64url');
    secrets.add('PKCE code verifier', verifier);
    const authorizeUrl = new URL(`${oauth.url}/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: CHAT,
      redirect_uri: CHAT_CALLBACK,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: `st-${randomBytes(6).toString('hex')}`,
      scope: 'data:read',
      resource: mcpUrl,
    }))
      authorizeUrl.searchParams.set(name, value);
    const oauthBrowser = new OAuthBrowser();
    const signIn = await oauthBrowser.request(authorizeUrl.toString());
    expect(signIn.status).toBe(200);
    await oauthBrowser.request(`${oauth.url}/authorize/sign-in`, {
      request: hidden(signIn.text, 'request'),
      csrf_token: hidden(signIn.text, 'csrf_token'),
      email,
      password: wrongPassword,
    });
    const signIn2 = await oauthBrowser.request(authorizeUrl.toString());
    const signedIn = await oauthBrowser.request(`${oauth.url}/authorize/sign-in`, {
      request: hidden(signIn2.text, 'request'),
      csrf_token: hidden(signIn2.text, 'csrf_token'),
      email,
      password,
    });
    expect(signedIn.status).toBe(303);
    const consentPage = await oauthBrowser.request(new URL(signedIn.headers.get('location')!, oauth.url).toString());
    const answered = await oauthBrowser.request(`${oauth.url}/authorize/consent`, {
      request: hidden(consentPage.text, 'request'),
      csrf_token: hidden(consentPage.text, 'csrf_token'),
      decision: 'allow',
    });
    expect(answered.status).toBe(303);
    const code = new URL(answered.headers.get('location')!).searchParams.get('code')!;
    secrets.add('OAuth authorization code', code);
    const token = (form: Record<string, string>) =>
      call('oauth /token', `${oauth.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const codeForm = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CHAT_CALLBACK,
      code_verifier: verifier,
      client_id: CHAT,
      resource: mcpUrl,
    };
    const wrongVerifier = randomBytes(48).toString('base64url');
    secrets.add('wrong PKCE verifier', wrongVerifier);
    const issued = await token(codeForm);
    expect(issued.status).toBe(200);
    const tokens = issued.json<{ access_token: string; refresh_token: string }>();
    secrets.add('OAuth access token', tokens.access_token);
    secrets.add('OAuth refresh token', tokens.refresh_token);
    expect((await rpc(tokens.access_token, 'tools/list')).status).toBe(200);
    await rpc(tokens.access_token, 'tools/call', {
      name: 'call_endpoint',
      arguments: { provider: 'video-ads', path: ADVERTISERS, account_id: portalAccount },
    });
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: CHAT,
    });
    expect(refreshed.status).toBe(200);
    const renewed = refreshed.json<{ access_token: string; refresh_token: string }>();
    secrets.add('OAuth access token (refreshed)', renewed.access_token);
    secrets.add('OAuth refresh token (refreshed)', renewed.refresh_token);
    await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CHAT }); // replay
    await call('oauth /revoke', `${oauth.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: renewed.refresh_token, client_id: CHAT }).toString(),
    });
    await rpc(tokens.access_token, 'tools/list');
    expect((await token(codeForm)).status).toBe(400); // a code is used once
    await token({ ...codeForm, code_verifier: wrongVerifier });
    const forgedToken = `${tokens.access_token.slice(0, -8)}${randomBytes(4).toString('hex')}`;
    await rpc(forgedToken, 'tools/list');

    // ---- every token that went to a platform (renewed ones included) and every token stored after the run ----
    const log = (await fixtures.sandboxRequests(lastSeq)).requests;
    const refreshCalls = log.filter((request) => /token\/refresh|access_token\/get|oauth2\/token/.test(request.path));
    for (const request of log) {
      const fields = {
        ...Object.fromEntries(new URLSearchParams(request.query)),
        ...parseBody(request.body),
        ...request.headers,
      };
      for (const [name, value] of credentialValues(fields))
        secrets.add(`platform ${name} sent to ${request.path.split('/').slice(0, 3).join('/')}`, value);
    }
    for (const accountId of [...accountIds, portalAccount]) {
      const stored = await fixtures.store.connections.loadCredentials(accountId);
      // A connection marked needs_regrant (the revoked grant) has no usable credentials left.
      if (accountId === revokedAds.accountId && !stored) continue;
      secrets.add(`stored access token of ${accountId}`, stored?.access_token);
      if (stored?.refresh_token) secrets.add(`stored refresh token of ${accountId}`, stored.refresh_token);
    }
    const storedShop = await fixtures.store.connections.loadCredentials(shop.accountId);
    expect(storedShop?.access_token).not.toBe(shop.accessToken); // renewed during the run

    // ---- collect: metrics of every service, then stop everything (flushes spans and final log lines) ----
    const metricsTargets: [string, string][] = [
      ['edge-auth', cluster.edges[0]!.url],
      ['quota-actor', cluster.actors[0]!.url],
      ['provider-proxy', cluster.proxy.urls.http!],
      ['mcp-server', mcp.url],
      ['oauth-server', oauth.url],
      ['portal-api', portal.url],
    ];
    const metrics: Material[] = [];
    const seriesByService: Record<string, number> = {};
    for (const [service, url] of metricsTargets) {
      const response = await fetch(`${url}/metrics`);
      if (response.status !== 200) continue;
      const text = await response.text();
      const samples = parsePrometheusText(text);
      seriesByService[service] = samples.length;
      for (const sample of samples) {
        metrics.push({
          source: `metric ${service} ${sample.name}`,
          text: `${sample.name}${JSON.stringify(sample.labels)} ${sample.value}`,
        });
      }
      metrics.push({ source: `metrics text ${service}`, text });
    }
    // Stopping waits for each service's exit and the end of its output: spans are exported at shutdown and
    // every log line has been read.
    await oauth.stop();
    await cluster.stop();

    // ---- scan ----
    const gatewayLines = logLines.filter(({ service }) => service !== 'platform-sandbox');
    const material: Material[] = [
      ...gatewayLines.map(({ service, line }) => ({ source: `log ${service}`, text: line })),
      ...otlp.material(),
      ...metrics,
      ...errorBodies,
    ];
    const findings = secrets.scan(material);

    const linesByService: Record<string, number> = {};
    for (const { service } of gatewayLines) linesByService[service] = (linesByService[service] ?? 0) + 1;
    console.info(
      JSON.stringify(
        {
          secrets_checked: secrets.size,
          log_lines: gatewayLines.length,
          log_lines_by_service: linesByService,
          sandbox_log_lines_not_scanned: logLines.length - gatewayLines.length,
          otlp_exports: otlp.bodies.length,
          otlp_content_types: [...new Set(otlp.bodies.map((body) => `${body.path} ${body.contentType}`))],
          spans: otlp.spanCount,
          spans_by_service: Object.fromEntries(otlp.spansByService),
          metric_series_by_service: seriesByService,
          error_bodies: errorBodies.length,
          rest_statuses: statuses,
          renewal_load: Object.fromEntries(renewalStatuses),
          platform_token_calls: refreshCalls.map((request) => request.path),
          findings: findings.slice(0, 20),
        },
        null,
        2,
      ),
    );

    // Not vacuous: every kind of material was there to search, from every service that makes it.
    for (const service of ['edge-auth', 'quota-actor', 'provider-proxy', 'mcp-server', 'oauth-server', 'portal-api'])
      expect({ service, logged: (linesByService[service] ?? 0) > 0 }).toEqual({ service, logged: true });
    expect(gatewayLines.length).toBeGreaterThan(50);
    for (const service of ['edge-auth', 'quota-actor', 'provider-proxy', 'mcp-server'])
      expect({ service, spans: (otlp.spansByService.get(service) ?? 0) > 0 }).toEqual({ service, spans: true });
    for (const service of ['edge-auth', 'quota-actor', 'provider-proxy', 'mcp-server', 'oauth-server'])
      expect({ service, series: (seriesByService[service] ?? 0) > 0 }).toEqual({ service, series: true });
    expect(errorBodies.length).toBeGreaterThan(20);
    expect(refreshCalls.length).toBeGreaterThanOrEqual(3);
    expect(secrets.size).toBeGreaterThan(40);
    // The scanner finds what it looks for: a planted copy of a secret is a finding.
    expect(secrets.scan([{ source: 'planted', text: `{"msg":"oops","k":"${key}"}` }]).length).toBeGreaterThan(0);
    expect(
      secrets.scan([{ source: 'planted', text: `token …${shop.refreshToken.slice(5, 40)}…` }]).length,
    ).toBeGreaterThan(0);

    expect(findings).toEqual([]);
  });
});
