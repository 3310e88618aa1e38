import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { findEndpoint } from '@gateway/catalogue';
import { QpsGuard } from '../../limits/qps-guard';
import { jose } from './jose.runtime';
import { SearchAdsAdapter } from './search-ads.adapter';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PRIVATE_PEM = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const credentials = {
  access_token: 'tok-1',
  access_token_expires_at: new Date(NOW + 3_600_000).toISOString(),
  attributes: {
    client_id: 'SEARCHADS.11111111-2222-3333-4444-555555555555',
    team_id: 'SEARCHADS.66666666-7777-8888-9999-000000000000',
    key_id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
    org_id: '40669820',
    private_key: PRIVATE_PEM,
  },
};

function adapterWith(fetchImpl?: typeof fetch) {
  return new SearchAdsAdapter({
    apiBaseUrl: 'http://127.0.0.1:9/search-ads',
    authBaseUrl: 'http://127.0.0.1:9/search-ads-auth',
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    renewAheadMs: 60_000,
    now: () => NOW,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

function call(path: string, query = '', body?: string) {
  const endpoint = findEndpoint('search-ads', path)!;
  return { endpoint, method: endpoint.method, path, query, body: body === undefined ? undefined : Buffer.from(body) };
}

describe('search-ads adapter', () => {
  it("sends the connection's token and organization, not the caller's", () => {
    const prepared = adapterWith().prepare(
      call('/api/v5/campaigns/1234567890/adgroups', 'limit=50&offset=0'),
      credentials,
    );
    if (!prepared.ok) throw new Error(prepared.failure.detail);
    expect(prepared.request.pathAndQuery).toBe('/search-ads/api/v5/campaigns/1234567890/adgroups?limit=50&offset=0');
    expect(prepared.request.headers).toMatchObject({ authorization: 'Bearer tok-1', 'x-ap-context': 'orgId=40669820' });
  });

  it('sends no X-AP-Context on the user reads', () => {
    for (const path of ['/api/v5/acls', '/api/v5/me']) {
      const prepared = adapterWith().prepare(call(path), credentials);
      expect(prepared.ok && prepared.request.headers['x-ap-context']).toBeUndefined();
    }
  });

  it('forwards a report body as it came', () => {
    const body = '{"startTime":"2026-11-01","endTime":"2026-11-07","selector":{"pagination":{"offset":0,"limit":10}}}';
    const prepared = adapterWith().prepare(call('/api/v5/reports/campaigns', '', body), credentials);
    expect(prepared.ok && prepared.request.method).toBe('POST');
    expect(prepared.ok && prepared.request.body?.toString()).toBe(body);
  });

  it('mints a token with an ES256 client assertion the public key verifies', async () => {
    let form: URLSearchParams | undefined;
    const adapter = adapterWith(async (input, init) => {
      expect(String(input)).toBe('http://127.0.0.1:9/search-ads-auth/auth/oauth2/token');
      form = new URLSearchParams(String(init?.body));
      return new Response(JSON.stringify({ access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 }));
    });
    const outcome = await adapter.renew(credentials);
    expect(outcome).toMatchObject({
      ok: true,
      credentials: { access_token: 'tok-2', access_token_expires_at: new Date(NOW + 3_600_000).toISOString() },
    });
    expect(form?.get('grant_type')).toBe('client_credentials');
    expect(form?.get('scope')).toBe('searchadsorg');
    const { payload, protectedHeader } = await jose.jwtVerify(form!.get('client_secret')!, keys.publicKey, {
      audience: 'https://appleid.apple.com',
      currentDate: new Date(NOW),
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: credentials.attributes.key_id });
    expect(payload).toMatchObject({ sub: credentials.attributes.client_id, iss: credentials.attributes.team_id });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(180 * 86_400);
  });

  it('tells a deleted API user from a platform that is down', async () => {
    const answering = (status: number, error: string) =>
      adapterWith(async () => new Response(JSON.stringify({ error }), { status }));
    expect(await answering(400, 'invalid_client').renew(credentials)).toMatchObject({ reason: 'refused' });
    expect(await answering(503, 'temporarily_unavailable').renew(credentials)).toMatchObject({
      reason: 'unavailable',
    });
  });

  it('takes a 401 for a token error', () => {
    expect(adapterWith().isTokenError(401)).toBe(true);
    expect(adapterWith().isTokenError(403)).toBe(false);
  });

  it('never shows the private key when inspected', () => {
    expect(inspect(adapterWith(), { depth: 5 })).not.toContain('PRIVATE KEY');
  });
});
