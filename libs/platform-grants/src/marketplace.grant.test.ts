import { marketplaceGrant } from './marketplace.grant';
import { marketplaceSign } from './marketplace.signature';
import { GrantExchangeError } from './platform-grant';

const APP = { baseUrl: 'https://sandbox.test/marketplace/', partnerId: '2001002', partnerKey: 'the-partner-key' };
const NOW = 1_700_000_000_000;
const CALLBACK = 'https://portal.test/api/connections/callback';

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A fake platform answering the code exchange; records what was asked. */
function platform(answer?: unknown) {
  const calls: { url: URL; init: RequestInit | undefined }[] = [];
  const fake = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: new URL(input.toString()), init });
    return json(
      answer ?? {
        request_id: 'r',
        error: '',
        message: '',
        access_token: 'AT-1',
        refresh_token: 'RT-1',
        expire_in: 14_400,
        shop_id_list: [880011223344],
      },
    );
  }) as typeof fetch;
  return { calls, fetch: fake };
}

describe('marketplaceGrant', () => {
  it('stores the refresh token expiry of the lifetime it is given', async () => {
    const fake = platform();
    const grant = marketplaceGrant('marketplace', APP, {
      now: () => NOW,
      fetch: fake.fetch,
      refreshTokenLifetimeMs: 60_000,
    });
    const [account] = await grant.exchange({ code: 'c0de', shop_id: '880011223344', state: 's' });
    expect(account!.credentials.refresh_token_expires_at).toBe(new Date(NOW + 60_000).toISOString());
  });

  it('sends the owner to the signed authorization page of its app, the state inside the redirect', () => {
    const grant = marketplaceGrant('marketplace-ads', APP, { now: () => NOW });
    expect(grant.provider).toBe('marketplace-ads');
    expect(grant.regrantMatch).toBe('same_accounts');
    const url = new URL(grant.authorizationUrl('st-1', CALLBACK));
    expect(`${url.origin}${url.pathname}`).toBe('https://sandbox.test/marketplace/api/v2/shop/auth_partner');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      partner_id: '2001002',
      timestamp: String(NOW / 1000),
      sign: marketplaceSign('the-partner-key', '2001002', '/api/v2/shop/auth_partner', NOW / 1000),
      redirect: `${CALLBACK}?state=st-1`,
    });
    expect(url.toString()).not.toContain('the-partner-key');
  });

  it('exchanges code and shop_id for one connection of the shop, with both expiries and the shop id', async () => {
    const fake = platform();
    const grant = marketplaceGrant('marketplace', APP, { now: () => NOW, fetch: fake.fetch });
    const accounts = await grant.exchange({ code: 'c0de', shop_id: '880011223344', state: 's' });
    expect(accounts).toEqual([
      {
        externalAccountIds: ['880011223344'],
        credentials: {
          access_token: 'AT-1',
          refresh_token: 'RT-1',
          access_token_expires_at: new Date(NOW + 14_400_000).toISOString(),
          refresh_token_expires_at: new Date(NOW + 30 * 86_400_000).toISOString(),
          attributes: { shop_id: '880011223344' },
        },
      },
    ]);
    const [call] = fake.calls;
    expect(`${call!.url.origin}${call!.url.pathname}`).toBe('https://sandbox.test/marketplace/api/v2/auth/token/get');
    expect(call!.init?.method).toBe('POST');
    expect(Object.fromEntries(call!.url.searchParams)).toEqual({
      partner_id: '2001002',
      timestamp: String(NOW / 1000),
      sign: marketplaceSign('the-partner-key', '2001002', '/api/v2/auth/token/get', NOW / 1000),
    });
    expect(JSON.parse(String(call!.init?.body))).toEqual({ code: 'c0de', partner_id: 2001002, shop_id: 880011223344 });
  });

  it('refuses a callback without code or with a shop_id that is not digits, before calling the platform', async () => {
    const fake = platform();
    const grant = marketplaceGrant('marketplace', APP, { fetch: fake.fetch });
    await expect(grant.exchange({ shop_id: '1' })).rejects.toBeInstanceOf(GrantExchangeError);
    await expect(grant.exchange({ code: 'c' })).rejects.toBeInstanceOf(GrantExchangeError);
    await expect(grant.exchange({ code: 'c', shop_id: '1e3' })).rejects.toBeInstanceOf(GrantExchangeError);
    expect(fake.calls).toHaveLength(0);
  });

  it('turns a platform error into a GrantExchangeError without the key or the code', async () => {
    const fake = platform({ request_id: 'r', error: 'error_auth', message: 'Invalid code c0de the-partner-key' });
    const grant = marketplaceGrant('marketplace', APP, { fetch: fake.fetch });
    const failure = await grant.exchange({ code: 'c0de', shop_id: '7' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GrantExchangeError);
    expect(String((failure as Error).message)).toContain('error_auth');
    expect(String((failure as Error).message)).not.toMatch(/c0de|the-partner-key/);
  });

  it('refuses a token answer without tokens or expire_in', async () => {
    const grant = marketplaceGrant('marketplace', APP, {
      fetch: platform({ error: '', message: '', access_token: 'AT', refresh_token: 'RT' }).fetch,
    });
    await expect(grant.exchange({ code: 'c', shop_id: '7' })).rejects.toBeInstanceOf(GrantExchangeError);
  });
});
