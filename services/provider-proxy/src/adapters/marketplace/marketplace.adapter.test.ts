import { inspect } from 'node:util';
import { findEndpoint } from '@gateway/catalogue';
import { QpsGuard } from '../../limits/qps-guard';
import { MarketplaceAdapter } from './marketplace.adapter';
import { marketplaceSign } from '@gateway/platform-grants';

const KEY = '57615053704d6470644f554a78656d50484143644964436a5568777544524579';
const NOW = 1_655_714_431_000;

function adapterWith(fetchImpl?: typeof fetch) {
  return new MarketplaceAdapter({
    provider: 'marketplace',
    baseUrl: 'http://127.0.0.1:9/marketplace',
    partnerId: '2001887',
    partnerKey: KEY,
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    renewAheadMs: 60_000,
    now: () => NOW,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

const credentials = {
  access_token: '59777174636562737266615546704c6d',
  refresh_token: 'refresh-1',
  attributes: { shop_id: '14701711' },
};

function call(path: string, query: string) {
  return { endpoint: findEndpoint('marketplace', path)!, method: 'GET' as const, path, query, body: undefined };
}

describe('marketplace signature', () => {
  it('matches the platform vector of a shop call', () => {
    expect(
      marketplaceSign(KEY, '2001887', '/api/v2/shop/get_shop_info', 1655714431, {
        accessToken: '59777174636562737266615546704c6d',
        shopId: '14701711',
      }),
    ).toBe('b914bea03c13799deb036bb9d10e689f5a6bade160c44af568646f1ef7d796c1');
  });

  it('matches the platform vector of a public call', () => {
    expect(marketplaceSign(KEY, '2001887', '/api/v2/public/get_shops_by_partner', 1655714431)).toBe(
      '60ab8c4a535009ab33b8a0029ee18a667ef6eaeb16481ed3d573a5059122d4df',
    );
  });
});

describe('marketplace adapter', () => {
  it("drops the caller's partner_id, timestamp, token, shop and sign, and signs with the connection's", () => {
    const prepared = adapterWith().prepare(
      call('/api/v2/shop/get_shop_info', 'partner_id=1&PARTNER_ID=2&timestamp=3&access_token=x&shop_id=9&sign=s&a=1'),
      credentials,
    );
    expect(prepared.ok && prepared.request.pathAndQuery).toBe(
      '/marketplace/api/v2/shop/get_shop_info?a=1&partner_id=2001887&timestamp=1655714431' +
        '&access_token=59777174636562737266615546704c6d&shop_id=14701711' +
        '&sign=b914bea03c13799deb036bb9d10e689f5a6bade160c44af568646f1ef7d796c1',
    );
  });

  it('keeps repeated and comma-joined list parameters as the caller wrote them', () => {
    const prepared = adapterWith().prepare(
      call('/api/v2/product/get_item_list', 'offset=0&page_size=100&item_status=NORMAL&item_status=BANNED'),
      credentials,
    );
    expect(prepared.ok && prepared.request.pathAndQuery).toContain('item_status=NORMAL&item_status=BANNED&partner_id=');
  });

  it('refuses a call when the connection has no shop id', () => {
    expect(adapterWith().prepare(call('/api/v2/shop/get_shop_info', ''), { access_token: 't' })).toMatchObject({
      ok: false,
      failure: { code: 'connection_unavailable' },
    });
  });

  it('takes error_auth for a token error and nothing else', () => {
    const body = (error: string) => Buffer.from(JSON.stringify({ request_id: 'r', error, message: 'm' }));
    const adapter = adapterWith();
    expect(adapter.isTokenError(200, body('error_auth'))).toBe(true);
    expect(adapter.isTokenError(200, body('error_sign'))).toBe(false);
    expect(adapter.isTokenError(200, body(''))).toBe(false);
    expect(adapter.isTokenError(500, body('error_auth'))).toBe(false);
  });

  it('refreshes with a public signature and the single-use refresh token, keeping the shop', async () => {
    let asked: { url: URL; body: unknown } | undefined;
    const adapter = adapterWith(async (input, init) => {
      asked = { url: new URL(String(input)), body: JSON.parse(String(init?.body)) };
      return new Response(
        JSON.stringify({
          request_id: 'r',
          error: '',
          message: '',
          access_token: 'a2',
          refresh_token: 'r2',
          expire_in: 14400,
        }),
      );
    });
    const outcome = await adapter.renew(credentials);
    expect(asked?.url.pathname).toBe('/marketplace/api/v2/auth/access_token/get');
    expect(asked?.url.searchParams.get('sign')).toBe(
      marketplaceSign(KEY, '2001887', '/api/v2/auth/access_token/get', 1655714431),
    );
    expect(asked?.body).toEqual({ refresh_token: 'refresh-1', partner_id: 2001887, shop_id: 14701711 });
    expect(outcome).toMatchObject({
      ok: true,
      credentials: {
        access_token: 'a2',
        refresh_token: 'r2',
        access_token_expires_at: new Date(NOW + 14_400_000).toISOString(),
        attributes: { shop_id: '14701711' },
      },
    });
  });

  it('tells a dead refresh token from a platform that is down', async () => {
    const answering = (status: number, error: string) =>
      adapterWith(async () => new Response(JSON.stringify({ error, message: 'x' }), { status }));
    expect(await answering(200, 'error_param').renew(credentials)).toMatchObject({ reason: 'refused' });
    expect(await answering(200, 'error_server').renew(credentials)).toMatchObject({ reason: 'unavailable' });
    expect(await answering(502, 'error_auth').renew(credentials)).toMatchObject({ reason: 'unavailable' });
  });

  it('does not show the partner key when inspected or serialised', () => {
    expect(inspect(adapterWith(), { depth: 5 })).not.toContain(KEY);
    expect(JSON.stringify(adapterWith())).not.toContain(KEY);
  });
});
