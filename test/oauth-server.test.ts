import { hashPassword } from '@gateway/store';
import {
  GatewayFixtures,
  startGatewayCluster,
  waitUntil,
  type GatewayCluster,
  type RunningService,
} from '@gateway/testing';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHash, randomBytes } from 'node:crypto';
import { startOAuthWithMcp, testDatabaseUri, testNatsUrl } from './harness';

/**
 * oauth-server end to end (spec 5.3): the MCP SDK's own client-side OAuth against real oauth-server and mcp-server
 * processes, with quota-actor, provider-proxy and the platform sandbox behind them; the sign-in and consent
 * pages are driven over HTTP like a browser (cookies, forms); then the attacks on each step.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let oauth: RunningService;
let issuer: string;
let mcpUrl: string;
let mongoUri: string;

const CHAT = 'chat-assistant';
const CHAT_CALLBACK = 'https://chat.assistant.test/api/mcp/auth_callback';
const SECOND = 'second-assistant';
const SECOND_PREFIX = 'https://second.assistant.test/connector/oauth/';
const PASSWORD = 'correct horse battery staple';
const ADVERTISERS = '/v1.3/oauth2/advertiser/get/';
/** Every secret value the flows handed out, to look for in the database afterwards. */
const handedOut = new Set<string>();

beforeAll(async () => {
  mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000 });
  ({ oauth, mcpUrl } = await startOAuthWithMcp(cluster, {
    mongoUri,
    natsUrl: testNatsUrl(),
    oauthEnv: {
      CHAT_ASSISTANT_CLIENT_ID: CHAT,
      CHAT_ASSISTANT_NAME: 'Chat Assistant',
      CHAT_ASSISTANT_REDIRECT_URIS: CHAT_CALLBACK,
      SECOND_ASSISTANT_CLIENT_ID: SECOND,
      SECOND_ASSISTANT_NAME: 'Second Assistant',
      SECOND_ASSISTANT_REDIRECT_PREFIX: SECOND_PREFIX,
      SIGN_IN_MAX_FAILURES: '50',
    },
    mcpEnv: { OAUTH_TOKEN_CACHE_MS: '1000' },
  }));
  issuer = oauth.url;
}, 180_000);

afterAll(async () => {
  await oauth?.stop();
  await fixtures?.close();
  await cluster?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

/** A portal customer with a password (hashed as the portal does) and one video-ads connection. */
async function portalCustomer() {
  const email = `o-${randomBytes(5).toString('hex')}@example.test`;
  const customer = await fixtures.store.customers.create({
    name: 'OAuth Tester',
    email,
    plan: 'trial',
    password_hash: await hashPassword(PASSWORD),
  });
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  return { customer, email, accountId: connection.accountId };
}

/** A browser: keeps cookies, follows nothing by itself, sends Origin on form posts like a browser does. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string | URL, init: { method?: string; form?: Record<string, string> } = {}) {
    const response = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        ...(this.cookies.size > 0 ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded', origin: issuer } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return { status: response.status, location: response.headers.get('location'), body: await response.text() };
  }
}

function hidden(page: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no hidden field ${name} in: ${page.slice(0, 300)}`);
  return match[1]!;
}

/**
 * Signs in and consents on the pages like a person would; returns the callback URL the browser is sent to.
 * `decision` deny answers the consent with Deny.
 */
async function signInAndConsent(
  authorizationUrl: URL | string,
  email: string,
  options: { browser?: Browser; decision?: 'allow' | 'deny'; expectName?: string } = {},
): Promise<URL> {
  const browser = options.browser ?? new Browser();
  const signIn = await browser.request(authorizationUrl);
  expect(signIn.status).toBe(200);
  expect(signIn.body).toContain('Sign in to connect');
  const signedIn = await browser.request(`${issuer}/authorize/sign-in`, {
    form: {
      request: hidden(signIn.body, 'request'),
      csrf_token: hidden(signIn.body, 'csrf_token'),
      email,
      password: PASSWORD,
    },
  });
  expect(signedIn.status).toBe(303);
  const consent = await browser.request(new URL(signedIn.location!, issuer));
  expect(consent.status).toBe(200);
  expect(consent.body).toContain(`Allow ${options.expectName ?? 'Chat Assistant'} to read your data?`);
  expect(consent.body).toContain(`${options.expectName ?? 'Chat Assistant'} (OAuth)`);
  const answered = await browser.request(`${issuer}/authorize/consent`, {
    form: {
      request: hidden(consent.body, 'request'),
      csrf_token: hidden(consent.body, 'csrf_token'),
      decision: options.decision ?? 'allow',
    },
  });
  expect(answered.status).toBe(303);
  const callback = new URL(answered.location!);
  expect(callback.searchParams.get('iss')).toBe(issuer);
  const code = callback.searchParams.get('code');
  if (code) handedOut.add(code);
  return callback;
}

/** PKCE pair (RFC 7636 S256). */
function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string | undefined>): URL {
  const url = new URL(`${issuer}/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

function goodParams(overrides: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  return {
    verifier,
    params: {
      response_type: 'code',
      client_id: CHAT,
      redirect_uri: CHAT_CALLBACK,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: `st-${randomBytes(6).toString('hex')}`,
      scope: 'data:read',
      resource: mcpUrl,
      ...overrides,
    },
  };
}

async function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json()) as Record<string, string>;
  if (body.access_token) handedOut.add(body.access_token);
  if (body.refresh_token) handedOut.add(body.refresh_token);
  return { status: response.status, body, headers: response.headers };
}

/** A code for `email` through the pages, and its verifier. */
async function codeFor(email: string, overrides: Record<string, string | undefined> = {}) {
  const { verifier, params } = goodParams(overrides);
  const callback = await signInAndConsent(authorizeUrl(params), email);
  expect(callback.searchParams.get('state')).toBe(params.state);
  return { code: callback.searchParams.get('code')!, verifier, params };
}

async function tokensFor(email: string) {
  const { code, verifier } = await codeFor(email);
  const answer = await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: CHAT_CALLBACK,
    code_verifier: verifier,
    client_id: CHAT,
    resource: mcpUrl,
  });
  expect(answer.status).toBe(200);
  return {
    code,
    verifier,
    access_token: answer.body.access_token!,
    refresh_token: answer.body.refresh_token!,
  };
}

async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.text();
  return response.status;
}

/** An OAuthClientProvider of a pre-registered public client: no secret, no saveClientInformation (no DCR). */
class PreRegisteredClient implements OAuthClientProvider {
  authorizationUrl?: URL;
  readonly states: string[] = [];
  private saved?: OAuthTokens;
  private verifier?: string;

  constructor(
    private readonly clientId: string,
    private readonly callback: string,
  ) {}

  get redirectUrl() {
    return this.callback;
  }
  get clientMetadata() {
    return { client_name: 'test assistant', redirect_uris: [this.callback] };
  }
  state() {
    const state = randomBytes(8).toString('hex');
    this.states.push(state);
    return state;
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.clientId };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

function recordingFetch(log: { url: string; method: string; status: number }[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    log.push({ url, method: init?.method ?? 'GET', status: response.status });
    return response;
  };
}

describe('OAuth - an assistant connects with the MCP SDK client (spec 5.3)', () => {
  it('discovers, gets 401, signs in and consents, exchanges the code and calls tools, never registering', async () => {
    const { customer, email, accountId } = await portalCustomer();
    const calls: { url: string; method: string; status: number }[] = [];
    const fetchFn = recordingFetch(calls);
    const provider = new PreRegisteredClient(CHAT, CHAT_CALLBACK);

    // The first unauthenticated MCP request: 401 with where to learn more (spec 4.3, 5.3 rule 5).
    const first = await fetchFn(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(first.status).toBe(401);
    const challenge = first.headers.get('www-authenticate')!;
    const resourceMetadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]!);

    expect(await auth(provider, { serverUrl: mcpUrl, resourceMetadataUrl, fetchFn })).toBe('REDIRECT');
    const discovery = calls.filter((call) => call.url.includes('/.well-known/'));
    expect(discovery.length).toBeGreaterThanOrEqual(2);
    for (const call of discovery) expect(call.status).toBe(200);
    expect(discovery.map((call) => new URL(call.url).pathname)).toEqual(
      expect.arrayContaining(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']),
    );

    const authorization = provider.authorizationUrl!;
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${issuer}/authorize`);
    expect(authorization.searchParams.get('resource')).toBe(mcpUrl);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await signInAndConsent(authorization, email);
    expect(callback.searchParams.get('state')).toBe(provider.states.at(-1));

    expect(
      await auth(provider, {
        serverUrl: mcpUrl,
        resourceMetadataUrl,
        authorizationCode: callback.searchParams.get('code')!,
        fetchFn,
      }),
    ).toBe('AUTHORIZED');
    const tokens = provider.tokens()!;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'data:read' });
    handedOut.add(tokens.access_token);
    handedOut.add(tokens.refresh_token!);

    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: fetchFn });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('call_endpoint');
    const result = (await client.callTool({
      name: 'call_endpoint',
      arguments: { provider: 'video-ads', path: ADVERTISERS },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ provider: 'video-ads', path: ADVERTISERS, account_id: accountId });

    // The SDK refreshes with the rotating refresh token (and the resource) when asked again.
    expect(await auth(provider, { serverUrl: mcpUrl, resourceMetadataUrl, fetchFn })).toBe('AUTHORIZED');
    const refreshed = provider.tokens()!;
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    handedOut.add(refreshed.access_token);
    handedOut.add(refreshed.refresh_token!);
    expect(await mcpStatus(refreshed.access_token)).toBe(200);

    expect(calls.filter((call) => new URL(call.url).pathname === '/register')).toEqual([]);

    // The grant is the key "<assistant> (OAuth)" the portal lists (spec 2.1, 5.3 rule 6).
    const keys = await fixtures.store.apiKeys.listByCustomer(customer.customer_id);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      name: 'Chat Assistant (OAuth)',
      source: 'oauth',
      status: 'active',
      oauth: { client_id: CHAT, subject: customer.customer_id },
      providers: expect.arrayContaining(['video-ads']),
      account_ids: [accountId],
      follows_connections: true,
    });

    // The key follows the customer's connections (issue 15): one granted after the consent works for the assistant
    // on its next call once the portal has told the key's actor (as the portal's grant callback does).
    const later = await fixtures.videoAdsConnection(customer.customer_id, 1);
    await fixtures.lifecycle.connectionsChanged(customer.customer_id);
    const laterCall = (await client.callTool({
      name: 'call_endpoint',
      arguments: { provider: 'video-ads', path: ADVERTISERS, account_id: later.accountId },
    })) as CallToolResult;
    expect(laterCall.isError).toBeFalsy();
    expect(laterCall.structuredContent).toMatchObject({ account_id: later.accountId });
  });

  it('lets the second assistant in with a callback under its prefix and authentication none', async () => {
    const { email } = await portalCustomer();
    const callbackUri = `${SECOND_PREFIX}cb_${randomBytes(4).toString('hex')}`;
    const { verifier, params } = goodParams({ client_id: SECOND, redirect_uri: callbackUri });
    const callback = await signInAndConsent(authorizeUrl(params), email, { expectName: 'Second Assistant' });
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUri);
    const code = callback.searchParams.get('code')!;
    const basic = `Basic ${Buffer.from(`${SECOND}:`).toString('base64')}`;
    const refused = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: callbackUri, code_verifier: verifier },
      { authorization: basic },
    );
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const answer = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackUri,
      code_verifier: verifier,
      client_id: SECOND,
    });
    expect(answer.status).toBe(200);
    expect(await mcpStatus(answer.body.access_token!)).toBe(200);
  });

  it('reuses the key for the same user and assistant, and says no to a denied consent', async () => {
    const { customer, email } = await portalCustomer();
    await tokensFor(email);
    await tokensFor(email);
    const keys = await fixtures.store.apiKeys.listByCustomer(customer.customer_id);
    expect(keys.map((key) => key.name)).toEqual(['Chat Assistant (OAuth)']);
    const { params } = goodParams();
    const denied = await signInAndConsent(authorizeUrl(params), email, { decision: 'deny' });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe(params.state);
    expect(denied.searchParams.get('code')).toBeNull();
  });
});

describe('OAuth - the consent page', () => {
  it('offers another account: signing out shows the sign-in page for the same request', async () => {
    const { email } = await portalCustomer();
    const browser = new Browser();
    const url = authorizeUrl(goodParams().params);
    await signInAndConsent(url, email, { browser });
    const consent = await browser.request(url);
    expect(consent.body).toContain(`Signed in as <strong>${email}</strong>`);
    const signedOut = await browser.request(`${issuer}/authorize/sign-out`, {
      form: { request: hidden(consent.body, 'request'), csrf_token: hidden(consent.body, 'csrf_token') },
    });
    expect(signedOut.status).toBe(303);
    const again = await browser.request(new URL(signedOut.location!, issuer));
    expect(again.body).toContain('Sign in to connect Chat Assistant');
  });
});

describe('OAuth - discovery (RFC 8414, spec 5.3 rule 2)', () => {
  it('serves the same metadata at both paths, S256 only, with the issuer mcp-server names, and no registration', async () => {
    const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', mcpUrl))).json()) as {
      authorization_servers: string[];
      resource: string;
    };
    expect(prm).toMatchObject({ authorization_servers: [issuer], resource: mcpUrl });
    const documents = [];
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await fetch(`${issuer}${path}`);
      expect(response.status).toBe(200);
      documents.push((await response.json()) as Record<string, unknown>);
    }
    expect(documents[0]).toEqual(documents[1]);
    expect(documents[0]).toMatchObject({
      issuer: prm.authorization_servers[0],
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      revocation_endpoint: `${issuer}/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      scopes_supported: ['data:read'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    });
    expect(documents[0]).not.toHaveProperty('registration_endpoint');
    expect(documents[0]).not.toHaveProperty('client_id_metadata_document_supported');
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${issuer}/register`, {
        method,
        ...(method === 'POST'
          ? { headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":["https://evil.test/cb"]}' }
          : {}),
      });
      expect(response.status).toBe(404);
    }
  });
});

describe('OAuth - /authorize refuses what it must (security)', () => {
  const attacks: [string, string][] = [
    ['another scheme', 'http://second.assistant.test/connector/oauth/abc'],
    ['a look-alike host', 'https://second.assistant.test.evil.example/connector/oauth/abc'],
    ['a look-alike prefix host', 'https://evilsecond.assistant.test/connector/oauth/abc'],
    ['userinfo', 'https://second.assistant.test@evil.example/connector/oauth/abc'],
    ['userinfo before the host', 'https://evil.example@second.assistant.test/connector/oauth/abc'],
    ['a port', 'https://second.assistant.test:8443/connector/oauth/abc'],
    ['the default port spelled out', 'https://second.assistant.test:443/connector/oauth/abc'],
    ['dot segments', 'https://second.assistant.test/connector/oauth/../../evil'],
    ['a dot-dot segment', 'https://second.assistant.test/connector/oauth/..'],
    ['an encoded slash', 'https://second.assistant.test/connector/oauth/a%2Fb'],
    ['an encoded dot segment', 'https://second.assistant.test/connector/oauth/%2e%2e'],
    ['a second segment', 'https://second.assistant.test/connector/oauth/abc/def'],
    ['a query', 'https://second.assistant.test/connector/oauth/abc?next=https://evil.example'],
    ['a fragment', 'https://second.assistant.test/connector/oauth/abc#frag'],
    ['a backslash', 'https://second.assistant.test/connector/oauth/a\\b'],
    ['the bare prefix', SECOND_PREFIX],
  ];

  it.each(attacks)('shows an error page and never redirects for %s', async (_why, redirectUri) => {
    const { params } = goodParams({ client_id: SECOND, redirect_uri: redirectUri });
    const response = await new Browser().request(authorizeUrl(params));
    expect(response.status).toBe(400);
    expect(response.location).toBeNull();
    expect(response.body).toContain('This sign-in link is not valid');
  });

  it('matches the first assistant callback exactly and refuses unknown clients with a page', async () => {
    for (const redirectUri of [`${CHAT_CALLBACK}/`, `${CHAT_CALLBACK}?x=1`, `${SECOND_PREFIX}abc`]) {
      const response = await new Browser().request(authorizeUrl(goodParams({ redirect_uri: redirectUri }).params));
      expect({ status: response.status, location: response.location }).toEqual({ status: 400, location: null });
    }
    for (const clientId of ['evil-client', undefined]) {
      const response = await new Browser().request(authorizeUrl(goodParams({ client_id: clientId }).params));
      expect({ status: response.status, location: response.location }).toEqual({ status: 400, location: null });
    }
  });

  it.each([
    ['without PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['with plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['without a challenge method', { code_challenge_method: undefined }, 'invalid_request'],
    ['for another resource', { resource: 'https://evil.example/mcp' }, 'invalid_target'],
    ['with an unknown scope', { scope: 'data:write' }, 'invalid_scope'],
    ['with another response type', { response_type: 'token' }, 'unsupported_response_type'],
  ])('sends the client an error %s, with its state', async (_why, overrides, error) => {
    const { params } = goodParams(overrides);
    const response = await new Browser().request(authorizeUrl(params));
    expect(response.status).toBe(302);
    const location = new URL(response.location!);
    expect(`${location.origin}${location.pathname}`).toBe(CHAT_CALLBACK);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe(params.state);
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('refuses sign-in and consent forms without the CSRF token or from another origin', async () => {
    const { email } = await portalCustomer();
    const browser = new Browser();
    const page = await browser.request(authorizeUrl(goodParams().params));
    const form = { request: hidden(page.body, 'request'), email, password: PASSWORD };
    const noToken = await browser.request(`${issuer}/authorize/sign-in`, { form });
    expect(noToken.status).toBe(403);
    const forged = await fetch(`${issuer}/authorize/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ ...form, csrf_token: hidden(page.body, 'csrf_token') }).toString(),
    });
    expect(forged.status).toBe(403);
    const wrong = await browser.request(`${issuer}/authorize/sign-in`, {
      form: { ...form, csrf_token: hidden(page.body, 'csrf_token'), password: 'not the password at all' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('The email or password is wrong.');
    const tampered = await browser.request(`${issuer}/authorize/sign-in`, {
      form: { ...form, csrf_token: hidden(page.body, 'csrf_token'), request: `${form.request.slice(0, -2)}AA` },
    });
    expect(tampered.status).toBe(400);
  });
});

describe('OAuth - /token refuses what it must (security)', () => {
  it('accepts a code once; a reused code is refused and revokes what it issued', async () => {
    const { email } = await portalCustomer();
    const { code, access_token, verifier } = await tokensFor(email);
    const again = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CHAT_CALLBACK,
      code_verifier: verifier,
      client_id: CHAT,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(await mcpStatus(access_token)).toBe(401);
  });

  it('refuses a wrong verifier, another redirect URI, another client and another resource', async () => {
    const { email } = await portalCustomer();
    const cases: [Record<string, string>, string][] = [
      [{ code_verifier: pkce().verifier }, 'invalid_grant'],
      [{ code_verifier: 'short' }, 'invalid_grant'],
      [{ redirect_uri: `${CHAT_CALLBACK}x` }, 'invalid_grant'],
      [{ client_id: SECOND }, 'invalid_grant'],
      [{ resource: 'https://evil.example/mcp' }, 'invalid_target'],
    ];
    for (const [overrides, error] of cases) {
      const { code, verifier } = await codeFor(email);
      const answer = await tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: CHAT_CALLBACK,
        code_verifier: verifier,
        client_id: CHAT,
        ...overrides,
      });
      expect({ overrides, status: answer.status, error: answer.body.error }).toEqual({ overrides, status: 400, error });
    }
    const { code, verifier } = await codeFor(email);
    const withSecret = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CHAT_CALLBACK,
      code_verifier: verifier,
      client_id: CHAT,
      client_secret: 'guessed',
    });
    expect(withSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('refuses at the MCP endpoint an access token whose audience is another resource', async () => {
    const { email } = await portalCustomer();
    const { access_token } = await tokensFor(email);
    await fixtures.store.connection
      .collection('oauth_tokens')
      .updateOne({ _id: createHash('sha256').update(access_token).digest('hex') } as never, {
        $set: { resource: 'https://other.example/mcp' },
      });
    expect(await mcpStatus(access_token)).toBe(401);
  });

  it('rotates refresh tokens; a rotated one is refused and its reuse revokes the family', async () => {
    const { email } = await portalCustomer();
    const first = await tokensFor(email);
    const refresh = (token: string) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: token, client_id: CHAT });
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpStatus(second.body.access_token!)).toBe(200);
    const third = await refresh(second.body.refresh_token!);
    expect(third.status).toBe(200);

    const replayed = await refresh(first.refresh_token);
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The family is gone: the legitimate holder's newest tokens too.
    expect(await refresh(third.body.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await mcpStatus(third.body.access_token!)).toBe(401);
    // Another client cannot use (or burn) someone's refresh token.
    const other = await tokensFor(email);
    expect(
      await tokenRequest({ grant_type: 'refresh_token', refresh_token: other.refresh_token, client_id: SECOND }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('revokes at the revocation endpoint (RFC 7009): refresh refused, access ends within the cache time', async () => {
    const { email } = await portalCustomer();
    const tokens = await tokensFor(email);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    const revoke = await fetch(`${issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: CHAT }),
    });
    expect(revoke.status).toBe(200);
    const unknown = await fetch(`${issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'dg_at_unknown', client_id: CHAT }),
    });
    expect(unknown.status).toBe(200);
    expect(
      await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CHAT }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // mcp-server caches a validated token for OAUTH_TOKEN_CACHE_MS (1 s here; 30 s by default): refused once that
    // has passed, well before the default would let it through.
    await waitUntil(async () => (await mcpStatus(tokens.access_token)) === 401, {
      timeoutMs: 10_000,
      onTimeout: () => new Error('the revoked token still reaches MCP 10 s later'),
    });
  });

  it('ends MCP access when the key is revoked in the portal, and a new consent makes a new key', async () => {
    const { customer, email } = await portalCustomer();
    const tokens = await tokensFor(email);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    const [key] = await fixtures.store.apiKeys.listByCustomer(customer.customer_id);
    await fixtures.lifecycle.revoke(key!.key_id);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    expect(
      await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CHAT }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const fresh = await tokensFor(email);
    expect(await mcpStatus(fresh.access_token)).toBe(200);
    const keys = await fixtures.store.apiKeys.listByCustomer(customer.customer_id);
    expect(keys.map((k) => [k.name, k.status])).toEqual([
      ['Chat Assistant (OAuth)', 'revoked'],
      ['Chat Assistant (OAuth)', 'active'],
    ]);
  });
});

describe('OAuth - nothing secret in clear in MongoDB (spec 2.1)', () => {
  it('stores no password, token, code or key, only hashes', async () => {
    expect(handedOut.size).toBeGreaterThan(10);
    const db = fixtures.store.connection.db!;
    const dump: string[] = [];
    for (const { name } of await db.listCollections().toArray()) {
      for (const doc of await db.collection(name).find({}).toArray()) dump.push(JSON.stringify(doc));
    }
    const everything = dump.join('\n');
    expect(everything).toContain('oauth');
    expect(everything).not.toContain(PASSWORD);
    for (const secret of handedOut) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/dg_(ac|at|rt)_[0-9A-Za-z]{43}/);
    expect(everything).not.toMatch(/dg_live_[0-9A-Za-z]{40}/);
    const tokens = await db.collection('oauth_tokens').find({}).toArray();
    expect(tokens.length).toBeGreaterThan(0);
    for (const doc of tokens) expect(String(doc._id)).toMatch(/^[0-9a-f]{64}$/);
  });
});
