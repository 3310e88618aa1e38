import { jose } from './jose.runtime';
import {
  generateSearchAdsKeyPair,
  searchAdsClientAssertion,
  searchAdsGrant,
  SearchAdsGrantError,
  type SearchAdsApiUser,
} from './search-ads.grant';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

async function apiUser(): Promise<SearchAdsApiUser & { publicKeyPem: string }> {
  const pair = await generateSearchAdsKeyPair();
  return {
    clientId: 'SEARCHADS.client-1',
    teamId: 'SEARCHADS.team-1',
    keyId: 'key-1',
    privateKeyPem: pair.privateKeyPem,
    publicKeyPem: pair.publicKeyPem,
  };
}

function answering(status: number, body: unknown, calls: { url: string; init?: RequestInit }[] = []) {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), ...(init ? { init } : {}) });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

describe('search-ads grant', () => {
  it('makes an EC P-256 key pair: SPKI public PEM and PKCS #8 private PEM', async () => {
    const pair = await generateSearchAdsKeyPair();
    expect(pair.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const key = await jose.importSPKI(pair.publicKeyPem, 'ES256');
    expect((await jose.exportJWK(key)).crv).toBe('P-256');
  });

  it('signs the client assertion with ES256: kid in the header, sub, iss, aud, iat and exp in the claims', async () => {
    const user = await apiUser();
    const jwt = await searchAdsClientAssertion(user, NOW);
    const { payload, protectedHeader } = await jose.jwtVerify(jwt, await jose.importSPKI(user.publicKeyPem, 'ES256'), {
      currentDate: new Date(NOW),
      audience: 'https://appleid.apple.com',
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: 'key-1' });
    expect(payload).toEqual({
      sub: 'SEARCHADS.client-1',
      iss: 'SEARCHADS.team-1',
      aud: 'https://appleid.apple.com',
      iat: NOW / 1000,
      exp: NOW / 1000 + 300,
    });
  });

  it('mints a token at {auth}/auth/oauth2/token with the client-credentials form and stores its expiry', async () => {
    const user = await apiUser();
    const calls: { url: string; init?: RequestInit }[] = [];
    const grant = searchAdsGrant({
      apiBaseUrl: 'http://sandbox.test/search-ads',
      authBaseUrl: 'http://sandbox.test/search-ads-auth/',
      now: () => NOW,
      fetch: answering(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 }, calls),
    });
    expect(await grant.mintToken(user)).toEqual({
      accessToken: 'tok-1',
      expiresAt: new Date(NOW + 3600_000).toISOString(),
    });
    expect(calls[0]!.url).toBe('http://sandbox.test/search-ads-auth/auth/oauth2/token');
    const form = new URLSearchParams(String(calls[0]!.init!.body));
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('client_id')).toBe('SEARCHADS.client-1');
    expect(form.get('scope')).toBe('searchadsorg');
    expect(form.get('client_secret')!.split('.')).toHaveLength(3);
  });

  it('tells invalid_client apart from other refusals and unavailability, without the assertion or key', async () => {
    const user = await apiUser();
    const grantAnswering = (status: number, body: unknown) =>
      searchAdsGrant({ apiBaseUrl: 'http://a.test', authBaseUrl: 'http://b.test', fetch: answering(status, body) });
    const refused = await grantAnswering(400, { error: 'invalid_client' })
      .mintToken(user)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SearchAdsGrantError);
    expect((refused as SearchAdsGrantError).reason).toBe('invalid_client');
    expect((refused as Error).message).not.toContain('PRIVATE KEY');
    const other = await grantAnswering(400, { error: 'invalid_scope' })
      .mintToken(user)
      .catch((e: unknown) => e);
    expect((other as SearchAdsGrantError).reason).toBe('refused');
    const down = await grantAnswering(503, 'busy')
      .mintToken(user)
      .catch((e: unknown) => e);
    expect((down as SearchAdsGrantError).reason).toBe('unavailable');
  });

  it('lists the organizations of /api/v5/acls with the Bearer token and no X-AP-Context', async () => {
    const calls: { url: string; init?: RequestInit }[] = [];
    const grant = searchAdsGrant({
      apiBaseUrl: 'http://sandbox.test/search-ads',
      authBaseUrl: 'http://sandbox.test/search-ads-auth',
      fetch: answering(
        200,
        {
          data: [
            { orgName: 'Org A', orgId: 4001, currency: 'USD', timeZone: 'America/Los_Angeles', roleNames: [] },
            { orgName: 'broken', orgId: 'x' },
          ],
          pagination: null,
          error: null,
        },
        calls,
      ),
    });
    expect(await grant.listOrgs('tok-1')).toEqual([
      { orgId: 4001, orgName: 'Org A', currency: 'USD', timeZone: 'America/Los_Angeles' },
    ]);
    expect(calls[0]!.url).toBe('http://sandbox.test/search-ads/api/v5/acls');
    const headers = calls[0]!.init!.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer tok-1');
    expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain('x-ap-context');
  });

  it("makes the connection's credentials as provider-proxy reads them, one org per connection", async () => {
    const user = await apiUser();
    const grant = searchAdsGrant({ apiBaseUrl: 'http://a.test', authBaseUrl: 'http://b.test' });
    const account = grant.grantedAccount(user, { accessToken: 'tok-1', expiresAt: '2025-01-15T13:00:00.000Z' }, 4001);
    expect(account).toEqual({
      externalAccountIds: ['4001'],
      credentials: {
        access_token: 'tok-1',
        access_token_expires_at: '2025-01-15T13:00:00.000Z',
        attributes: {
          client_id: 'SEARCHADS.client-1',
          team_id: 'SEARCHADS.team-1',
          key_id: 'key-1',
          org_id: '4001',
          private_key: user.privateKeyPem,
        },
      },
    });
  });
});
