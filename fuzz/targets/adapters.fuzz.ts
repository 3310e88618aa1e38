/*
 * Signing canonicalisation and request preparation of every adapter (provider-proxy adapters/*): video-ads,
 * video-shop, marketplace (x3) and search-ads, with fuzzed raw queries, paths and credentials.
 * Properties: prepare never throws; the prepared request carries each owned parameter the adapter adds exactly
 * once, with the adapter's value (never the caller's), and none of the others; no caller header reaches the
 * request; video-shop's signature verifies over what is sent (decodedPairs/videoShopSign never throw).
 */
import { endpointsOf, ownedParamsOf, type EndpointSpec, type ProviderId } from '@gateway/catalogue';
import { QpsGuard } from '../../services/provider-proxy/src/limits/qps-guard';
import { MarketplaceAdapter } from '../../services/provider-proxy/src/adapters/marketplace/marketplace.adapter';
import { SearchAdsAdapter } from '../../services/provider-proxy/src/adapters/search-ads/search-ads.adapter';
import { VideoAdsAdapter } from '../../services/provider-proxy/src/adapters/video-ads/video-ads.adapter';
import { VideoShopAdapter } from '../../services/provider-proxy/src/adapters/video-shop/video-shop.adapter';
import { decodedPairs } from '../../services/provider-proxy/src/adapters/video-shop/video-shop.signature';
import { videoShopSign } from '@gateway/platform-grants';
import type { ProviderAdapter } from '../../services/provider-proxy/src/adapters/provider-adapter';
import { Input, violated } from './input';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const guard = () => new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 });
const SHOP_SECRET = 'shop-app-secret';
const ADAPTERS: ProviderAdapter[] = [
  new VideoAdsAdapter({ baseUrl: 'https://ads.example', appId: 'APPID', appSecret: 'APPSECRET', guard: guard() }),
  new VideoShopAdapter({
    apiBaseUrl: 'https://shop.example/base',
    authBaseUrl: 'https://auth.example',
    appKey: 'APPKEY',
    appSecret: SHOP_SECRET,
    guard: guard(),
    renewAheadMs: 60_000,
    now: () => NOW,
  }),
  ...(['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const).map(
    (provider) =>
      new MarketplaceAdapter({
        provider,
        baseUrl: 'https://mp.example',
        partnerId: 'PARTNER',
        partnerKey: 'PARTNERKEY',
        guard: guard(),
        renewAheadMs: 60_000,
        now: () => NOW,
      }),
  ),
  new SearchAdsAdapter({
    apiBaseUrl: 'https://sa.example',
    authBaseUrl: 'https://sa-auth.example',
    guard: guard(),
    renewAheadMs: 60_000,
    now: () => NOW,
  }),
];

/** Owned parameters each adapter adds, with the value it must carry (undefined: any value, e.g. the signature). */
function expectedAdded(
  provider: ProviderId,
  endpoint: EndpointSpec,
  pathAndQuery: string,
  token: string,
  attrs: Record<string, string>,
) {
  const expected = new Map<string, string | undefined>();
  if (provider === 'video-ads' && endpoint.path === '/v1.3/oauth2/advertiser/get/') {
    expected.set('app_id', 'APPID').set('secret', 'APPSECRET');
  } else if (provider === 'video-shop') {
    expected
      .set('app_key', 'APPKEY')
      .set('timestamp', String(NOW / 1000))
      .set('sign', undefined);
    if (!/^\/base\/(authorization|seller)\//.test(pathAndQuery)) expected.set('shop_cipher', attrs['shop_cipher']);
  } else if (provider.startsWith('marketplace')) {
    expected
      .set('partner_id', 'PARTNER')
      .set('timestamp', String(NOW / 1000))
      .set('access_token', token)
      .set('shop_id', attrs['shop_id'])
      .set('sign', undefined);
  }
  return expected;
}

const SEEDS = [
  'access_token',
  'ACCESS_TOKEN',
  'access%5Ftoken',
  'sign',
  'app_key',
  'timestamp',
  'shop_cipher',
  'shop_id',
  'partner_id',
  'secret',
  'app_id',
  'app_secret',
  'Sign[]',
  'sign;x',
  'page_size',
  'a%2Bb',
  '%E2%80%8B',
  'x',
];

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const adapter = input.pick(ADAPTERS);
  const endpoints = endpointsOf(adapter.provider);
  if (endpoints.length === 0) return;
  const endpoint = input.pick(endpoints);
  const path = endpoint.path.replace(/\{[A-Za-z][A-Za-z0-9_]*\}/g, () => String(input.byte()));
  const segments: string[] = [];
  const count = input.byte() % 6;
  for (let i = 0; i < count; i++) {
    const name = input.bool() ? input.pick(SEEDS) : input.string(16);
    segments.push(`${name}${input.bool() ? `=${input.bool() ? 'CALLER' : input.string(16)}` : ''}`);
  }
  const query = input.bool() ? segments.join('&') : input.string(200);
  const token = `TOKEN${input.byte()}`;
  const attributes: Record<string, string> = {
    shop_cipher: `CIPHER${input.byte()}`,
    shop_id: String(input.byte()),
    org_id: '42',
  };
  const body = input.bool() ? Buffer.from(input.string(32)) : undefined;
  const prepared = adapter.prepare(
    { endpoint, method: endpoint.method, path, query, body },
    { access_token: token, attributes },
  );

  // The signature helpers on arbitrary input.
  const pairs = decodedPairs(query);
  videoShopSign(SHOP_SECRET, path, pairs, body);

  if (!prepared.ok) return;
  const { request } = prepared;
  const url = new URL(request.pathAndQuery, 'https://x');
  const rawQuery = request.pathAndQuery.includes('?')
    ? request.pathAndQuery.slice(request.pathAndQuery.indexOf('?') + 1)
    : '';
  const read = [...new URLSearchParams(rawQuery)];
  const owned = ownedParamsOf(adapter.provider);
  const expected = expectedAdded(adapter.provider, endpoint, request.pathAndQuery, token, attributes);
  for (const name of owned) {
    const values = read.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);
    const want = expected.get(name);
    if (!expected.has(name)) {
      if (values.length > 0)
        violated('owned parameter forwarded from the caller', { provider: adapter.provider, query, name, values });
      continue;
    }
    if (values.length !== 1)
      violated('owned parameter not exactly once', { provider: adapter.provider, query, name, values });
    if (want !== undefined && values[0] !== want)
      violated('owned parameter carries a caller value', { provider: adapter.provider, query, name, values });
  }
  for (const [key, value] of Object.entries(request.headers)) {
    if (value.includes('CALLER')) violated('caller value in a header', { provider: adapter.provider, key, value });
  }
  if (adapter.provider === 'video-ads' && request.headers['access-token'] !== token)
    violated('token header', { query });
  if (adapter.provider === 'search-ads' && request.headers['authorization'] !== `Bearer ${token}`)
    violated('bearer', { query });
  if (adapter.provider === 'video-shop') {
    const signedPath = url.pathname.replace(/^\/base/, '');
    const sign = new URLSearchParams(rawQuery).get('sign');
    if (sign !== videoShopSign(SHOP_SECRET, signedPath, decodedPairs(rawQuery), request.body)) {
      violated('video-shop signature does not verify over the bytes sent', {
        query,
        pathAndQuery: request.pathAndQuery,
      });
    }
  }
}
