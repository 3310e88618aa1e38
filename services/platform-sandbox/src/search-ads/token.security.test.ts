import type { Harness } from '../testing/sandbox.harness';
import {
  apiCall,
  clientSecret,
  newKeyPair,
  registerClient,
  requestToken,
  startSearchAdsSandbox,
  tokenFor,
  type ApiClient,
} from './testing/search-ads.harness';

const DAY_S = 86_400;

describe('search-ads client assertion checks', () => {
  let h: Harness;
  let client: ApiClient;

  beforeAll(async () => {
    h = await startSearchAdsSandbox();
    client = await registerClient(h);
  });
  afterAll(() => h.close());

  const now = (): number => Math.floor(h.clock.ms / 1000);

  it('issues a bearer token for a correctly signed assertion', async () => {
    const { status, body, headers } = await tokenFor(h, client);
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(typeof body.access_token).toBe('string');
    expect(body).not.toHaveProperty('refresh_token');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it.each<[string, () => Parameters<typeof tokenFor>[2]]>([
    ['signed by another key', () => ({ key: newKeyPair().privateKey })],
    ['for another audience', () => ({ aud: 'https://api.searchads.apple.com' })],
    ['already expired', () => ({ iat: now() - 2 * DAY_S, exp: now() - DAY_S })],
    ['with another key id', () => ({ kid: '00000000-0000-4000-8000-000000000000' })],
    ['with another issuer', () => ({ iss: 'SEARCHADS.00000000-0000-4000-8000-000000000000' })],
    ['with another subject', () => ({ sub: 'SEARCHADS.00000000-0000-4000-8000-000000000000' })],
  ])('refuses an assertion %s with invalid_client', async (_case, options) => {
    const { status, body } = await tokenFor(h, client, options());
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_client' });
  });

  it('refuses an assertion living longer than 180 days with invalid_grant', async () => {
    const { status, body } = await tokenFor(h, client, { iat: now(), exp: now() + 181 * DAY_S });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses an assertion issued in the future with invalid_grant', async () => {
    const { body } = await tokenFor(h, client, { iat: now() + 3600, exp: now() + 7200 });
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses an unknown client with invalid_client', async () => {
    const stranger = { ...client, client_id: 'SEARCHADS.11111111-1111-4111-8111-111111111111' };
    const { status, body } = await tokenFor(h, stranger, { sub: stranger.client_id });
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_client' });
  });

  it('refuses a client secret that is not a JWT with invalid_client', async () => {
    const { body } = await requestToken(h, {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: 'not-a-jwt',
      scope: 'searchadsorg',
    });
    expect(body).toEqual({ error: 'invalid_client' });
  });

  it('answers the request errors of RFC 6749', async () => {
    const secret = await clientSecret(h, client);
    const base = {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: secret,
      scope: 'searchadsorg',
    };
    expect((await requestToken(h, { ...base, grant_type: 'authorization_code' })).body.error).toBe(
      'unsupported_grant_type',
    );
    expect((await requestToken(h, { ...base, scope: 'other' })).body.error).toBe('invalid_scope');
    const { client_secret: _secret, ...missing } = base;
    expect((await requestToken(h, missing)).body.error).toBe('invalid_request');
    const json = await fetch(`${h.url}/search-ads-auth/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(base),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('stops a deleted API user: no new token, and its tokens answer 401', async () => {
    const doomed = await registerClient(h);
    const token = (await tokenFor(h, doomed)).body.access_token as string;
    expect((await apiCall(h, 'GET', '/acls', { token })).status).toBe(200);
    const revoke = await fetch(`${h.url}/_sandbox/search-ads/api-users/revoke`, {
      method: 'POST',
      body: JSON.stringify({ client_id: doomed.client_id }),
    });
    expect(await revoke.json()).toEqual({ revoked: 1 });
    expect((await tokenFor(h, doomed)).body).toEqual({ error: 'invalid_client' });
    const after = await apiCall(h, 'GET', '/acls', { token });
    expect(after.status).toBe(401);
    expect(after.body.error?.errors[0]?.messageCode).toBe('UNAUTHORIZED');
  });
});

describe('search-ads access tokens', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startSearchAdsSandbox({ SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S: '60' });
  });
  afterEach(() => h.close());

  it('expires a token after its configured lifetime with 401 UNAUTHORIZED', async () => {
    const client = await registerClient(h);
    const { body } = await tokenFor(h, client);
    expect(body.expires_in).toBe(60);
    const token = body.access_token as string;
    h.clock.advance(59_000);
    expect((await apiCall(h, 'GET', '/me', { token })).status).toBe(200);
    h.clock.advance(1000);
    const expired = await apiCall(h, 'GET', '/me', { token });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({
      data: null,
      pagination: null,
      error: { errors: [{ messageCode: 'UNAUTHORIZED', message: 'Invalid credentials', field: '' }] },
    });
  });

  it('answers 401 UNAUTHORIZED without a token or with an unknown one', async () => {
    expect((await apiCall(h, 'GET', '/acls')).status).toBe(401);
    expect((await apiCall(h, 'GET', '/acls', { token: 'made-up' })).status).toBe(401);
  });
});
