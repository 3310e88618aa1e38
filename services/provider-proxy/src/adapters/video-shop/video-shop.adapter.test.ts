import { inspect } from 'node:util';
import { findEndpoint } from '@gateway/catalogue';
import { QpsGuard } from '../../limits/qps-guard';
import { VideoShopAdapter } from './video-shop.adapter';
import { videoShopSign } from '@gateway/platform-grants';
import { decodedPairs } from './video-shop.signature';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const SECRET = 'shop-app-secret-value';

function adapterWith(fetchImpl?: typeof fetch) {
  return new VideoShopAdapter({
    apiBaseUrl: 'http://127.0.0.1:9/video-shop',
    authBaseUrl: 'http://127.0.0.1:9/video-shop-auth',
    appKey: 'app-key-1',
    appSecret: SECRET,
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    renewAheadMs: 60_000,
    now: () => NOW,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

const credentials = { access_token: 'tok-1', refresh_token: 'ref-1', attributes: { shop_cipher: 'CIPHER_1' } };

function call(path: string, query: string, body?: string) {
  const endpoint = findEndpoint('video-shop', path)!;
  return { endpoint, method: endpoint.method, path, query, body: body === undefined ? undefined : Buffer.from(body) };
}

/** The signature the platform computes for what the adapter sends. */
function platformSign(pathAndQuery: string, body?: Buffer): { path: string; sign: string; expected: string } {
  const url = new URL(pathAndQuery, 'http://x');
  const path = url.pathname.replace(/^\/video-shop/, '');
  const pairs = decodedPairs(url.search.slice(1));
  return {
    path,
    sign: url.searchParams.get('sign')!,
    expected: videoShopSign(SECRET, path, pairs, body),
  };
}

describe('video-shop adapter', () => {
  it('drops the caller credentials and signs the query, the cipher and the exact body bytes it sends', () => {
    const body = '{"order_status":"AWAITING_SHIPMENT"}';
    const prepared = adapterWith().prepare(
      call(
        '/order/202309/orders/search',
        'page_size=50&page_token=a%2Bb%2F&sign=evil&APP_KEY=x&timestamp=1&access_token=t&shop_cipher=other',
        body,
      ),
      credentials,
    );
    if (!prepared.ok) throw new Error(prepared.failure.detail);
    const { request } = prepared;
    expect(request.method).toBe('POST');
    expect(request.pathAndQuery).toBe(
      '/video-shop/order/202309/orders/search?page_size=50&page_token=a%2Bb%2F&app_key=app-key-1' +
        `&timestamp=${NOW / 1000}&shop_cipher=CIPHER_1&sign=${platformSign(request.pathAndQuery, request.body).expected}`,
    );
    expect(request.body?.toString()).toBe(body);
    expect(request.headers['x-tts-access-token']).toBe('tok-1');
    const signed = platformSign(request.pathAndQuery, request.body);
    expect(signed.sign).toBe(signed.expected);
  });

  it('sends no shop_cipher on seller paths, where the platform refuses one', () => {
    const prepared = adapterWith().prepare(call('/authorization/202309/shops', ''), credentials);
    expect(prepared.ok && prepared.request.pathAndQuery).not.toContain('shop_cipher');
  });

  it('refuses a shop call when the connection has no cipher', () => {
    const prepared = adapterWith().prepare(call('/finance/202309/statements', 'sort_field=statement_time'), {
      access_token: 't',
    });
    expect(prepared).toMatchObject({ ok: false, failure: { code: 'connection_unavailable' } });
  });

  it('takes only a 401 with a token code for a token error', () => {
    const envelope = (code: number) => Buffer.from(JSON.stringify({ code, message: 'x', data: null }));
    const adapter = adapterWith();
    expect(adapter.isTokenError(401, envelope(105002))).toBe(true);
    expect(adapter.isTokenError(401, envelope(36009004))).toBe(true);
    expect(adapter.isTokenError(400, envelope(36009004))).toBe(false);
    expect(adapter.isTokenError(401, envelope(106001))).toBe(false);
  });

  it('refreshes with the refresh token and keeps the connection attributes', async () => {
    let asked: URL | undefined;
    const adapter = adapterWith(async (input) => {
      asked = new URL(String(input));
      return new Response(
        JSON.stringify({
          code: 0,
          message: 'success',
          data: {
            access_token: 'tok-2',
            access_token_expire_in: 1_800_000_000,
            refresh_token: 'ref-2',
            refresh_token_expire_in: 1_900_000_000,
          },
        }),
      );
    });
    const outcome = await adapter.renew(credentials);
    expect(asked?.pathname).toBe('/video-shop-auth/api/v2/token/refresh');
    expect(asked?.searchParams.get('refresh_token')).toBe('ref-1');
    expect(asked?.searchParams.get('grant_type')).toBe('refresh_token');
    expect(outcome).toEqual({
      ok: true,
      credentials: {
        access_token: 'tok-2',
        refresh_token: 'ref-2',
        access_token_expires_at: new Date(1_800_000_000_000).toISOString(),
        refresh_token_expires_at: new Date(1_900_000_000_000).toISOString(),
        attributes: { shop_cipher: 'CIPHER_1' },
      },
    });
  });

  it('tells a refused refresh from a platform that is down', async () => {
    const answering = (status: number, code: number) =>
      adapterWith(async () => new Response(JSON.stringify({ code, message: 'x', data: null }), { status }));
    expect(await answering(401, 36004004).renew(credentials)).toMatchObject({ ok: false, reason: 'refused' });
    expect(await answering(500, 36009003).renew(credentials)).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    const down = adapterWith(() => Promise.reject(new Error('ECONNREFUSED')));
    expect(await down.renew(credentials)).toMatchObject({ ok: false, reason: 'unavailable' });
  });

  it('does not show the app secret when inspected or serialised', () => {
    const adapter = adapterWith();
    expect(inspect(adapter, { depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(adapter)).not.toContain(SECRET);
  });
});
