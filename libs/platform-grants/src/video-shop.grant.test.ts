import { GrantExchangeError } from './platform-grant';
import { videoShopGrant } from './video-shop.grant';
import { videoShopSign } from './video-shop.signature';

const APP = {
  apiBaseUrl: 'https://sandbox.test/video-shop',
  authBaseUrl: 'https://sandbox.test/video-shop-auth/',
  appKey: '6appkey',
  appSecret: 'the-app-secret',
};
const NOW = 1_700_000_000_000;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A fake platform: the token exchange, then the signed shop list; records what was asked. */
function platform(answers: { token?: unknown; shops?: unknown }) {
  const calls: { url: URL; headers: Headers }[] = [];
  const fake = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input.toString());
    calls.push({ url, headers: new Headers(init?.headers) });
    if (url.pathname.endsWith('/api/v2/token/get')) {
      return json(
        answers.token ?? {
          code: 0,
          message: 'success',
          data: {
            access_token: 'AT-1',
            access_token_expire_in: 1_700_604_800,
            refresh_token: 'RT-1',
            refresh_token_expire_in: 1_702_592_000,
            open_id: 'seller-1',
          },
        },
      );
    }
    return json(
      answers.shops ?? {
        code: 0,
        message: 'success',
        data: {
          shops: [
            { id: '101', name: 'A', region: 'US', seller_type: 'LOCAL', cipher: 'TTP_a', code: 'X' },
            { id: '102', name: 'B', region: 'GB', seller_type: 'LOCAL', cipher: 'ROW_b', code: 'Y' },
          ],
        },
      },
    );
  }) as typeof fetch;
  return { calls, fetch: fake };
}

describe('videoShopGrant', () => {
  it('sends the seller to the authorization page with app_key, state and redirect_uri', () => {
    const url = new URL(videoShopGrant(APP).authorizationUrl('st-1', 'https://portal.test/api/connections/callback'));
    expect(`${url.origin}${url.pathname}`).toBe('https://sandbox.test/video-shop-auth/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      app_key: '6appkey',
      state: 'st-1',
      redirect_uri: 'https://portal.test/api/connections/callback',
    });
  });

  it('exchanges the code and makes one account per shop, with the cipher and ISO expiries', async () => {
    const fake = platform({});
    const accounts = await videoShopGrant(APP, { now: () => NOW, fetch: fake.fetch }).exchange({ code: 'C-1' });
    expect(accounts).toEqual([
      {
        externalAccountIds: ['101'],
        credentials: {
          access_token: 'AT-1',
          refresh_token: 'RT-1',
          access_token_expires_at: new Date(1_700_604_800_000).toISOString(),
          refresh_token_expires_at: new Date(1_702_592_000_000).toISOString(),
          attributes: { shop_cipher: 'TTP_a', shop_id: '101' },
        },
      },
      expect.objectContaining({
        externalAccountIds: ['102'],
        credentials: expect.objectContaining({ attributes: { shop_cipher: 'ROW_b', shop_id: '102' } }),
      }),
    ]);
    const [token, shops] = fake.calls;
    expect(token!.url.pathname).toBe('/video-shop-auth/api/v2/token/get');
    expect(Object.fromEntries(token!.url.searchParams)).toEqual({
      app_key: '6appkey',
      app_secret: 'the-app-secret',
      auth_code: 'C-1',
      grant_type: 'authorized_code',
    });
    expect(shops!.url.pathname).toBe('/video-shop/authorization/202309/shops');
    expect(shops!.headers.get('x-tts-access-token')).toBe('AT-1');
    expect(shops!.url.searchParams.has('shop_cipher')).toBe(false);
    expect(shops!.url.searchParams.get('timestamp')).toBe(String(NOW / 1000));
    expect(shops!.url.searchParams.get('sign')).toBe(
      videoShopSign('the-app-secret', '/authorization/202309/shops', [
        ['app_key', '6appkey'],
        ['timestamp', String(NOW / 1000)],
      ]),
    );
  });

  it('refuses with the platform code and never repeats the secret, the code or a token', async () => {
    const refused = platform({
      token: { code: 36004004, message: 'bad auth_code C-1 for the-app-secret', data: null },
    });
    const error = await videoShopGrant(APP, { fetch: refused.fetch })
      .exchange({ code: 'C-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantExchangeError);
    expect((error as GrantExchangeError).platformCode).toBe(36004004);
    expect((error as Error).message).not.toContain('the-app-secret');
    expect((error as Error).message).not.toContain('C-1');

    const shopsRefused = platform({ shops: { code: 106001, message: 'wrong sign for AT-1', data: null } });
    const second = await videoShopGrant(APP, { fetch: shopsRefused.fetch })
      .exchange({ code: 'C-2' })
      .catch((e: unknown) => e);
    expect((second as GrantExchangeError).platformCode).toBe(106001);
    expect((second as Error).message).not.toContain('AT-1');
  });

  it('refuses a callback without a code', async () => {
    await expect(videoShopGrant(APP).exchange({ auth_code: 'x' })).rejects.toBeInstanceOf(GrantExchangeError);
  });
});
