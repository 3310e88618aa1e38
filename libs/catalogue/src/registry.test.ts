import { PROVIDER_IDS, endpointsOf, findEndpoint, isAllowedMethod, isProviderId, upstreamPathOf } from './index';
import { buildAllowlist, matchAllowlist } from './registry';
import type { EndpointSpec } from './types';

const SPEC_4_2_PATHS = [
  '/v1.3/oauth2/advertiser/get/',
  '/v1.3/advertiser/info/',
  '/v1.3/report/integrated/get/',
  '/v1.3/campaign/get/',
  '/v1.3/adgroup/get/',
  '/v1.3/ad/get/',
  '/v1.3/gmv_max/store/list/',
  '/v1.3/gmv_max/report/get/',
];

describe('catalogue allowlist', () => {
  it('holds exactly the eight video-ads paths of spec 4.2, all GET', () => {
    const endpoints = endpointsOf('video-ads');
    expect(endpoints.map((endpoint) => endpoint.path).sort()).toEqual([...SPEC_4_2_PATHS].sort());
    expect(endpoints.every((endpoint) => endpoint.method === 'GET')).toBe(true);
    expect(endpoints.every((endpoint) => upstreamPathOf(endpoint, endpoint.path) === `/open_api${endpoint.path}`)).toBe(
      true,
    );
  });

  it('knows the six provider ids of spec section 1 and nothing else', () => {
    expect(PROVIDER_IDS).toHaveLength(6);
    for (const id of PROVIDER_IDS) expect(isProviderId(id)).toBe(true);
    expect(isProviderId('VIDEO-ADS')).toBe(false);
    expect(isProviderId('__proto__')).toBe(false);
  });

  it.each([
    '/v1.3/campaign/create/',
    '/v1.3/campaign/status/update/',
    '/v1.3/campaign/get',
    '/v1.3/campaign/get//',
    '/v1.3/Campaign/get/',
    '/v1.3/campaign/%67et/',
    '/v1.3/campaign%2Fget/',
    '/v1.3/campaign/get/../create/',
    '/v1.3/./campaign/get/',
    '//v1.3/campaign/get/',
    '/v1.3\\campaign\\get\\',
    '/v1.3/campaign/get/;x=1',
    '/v1.2/campaign/get/',
    '',
  ])('does not match the disguised or unknown path %j', (path) => {
    expect(findEndpoint('video-ads', path)).toBeUndefined();
  });

  it('matches no path of one provider under another', () => {
    expect(findEndpoint('marketplace', '/v1.3/campaign/get/')).toBeUndefined();
    expect(findEndpoint('search-ads', '/api/v2/shop/get_shop_info')).toBeUndefined();
  });

  it('opens the search-ads reads: templates with digit ids, and the report as the only POST', () => {
    expect(findEndpoint('search-ads', '/api/v5/campaigns/1234567890')?.path).toBe('/api/v5/campaigns/{campaignId}');
    expect(findEndpoint('search-ads', '/api/v5/campaigns/1/adgroups/2/targetingkeywords')?.path).toBe(
      '/api/v5/campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords',
    );
    expect(
      endpointsOf('search-ads')
        .filter((e) => e.method === 'POST')
        .map((e) => e.path),
    ).toEqual(['/api/v5/reports/campaigns']);
    for (const path of [
      '/api/v5/campaigns/..%2F',
      '/api/v5/campaigns/1;x',
      '/api/v5/campaigns/abc',
      '/api/v5/campaigns/1/adgroups/2/targetingkeywords/bulk',
      '/api/v5/campaigns/%31',
      '/api/v5/campaigns/1/',
    ]) {
      expect(findEndpoint('search-ads', path)).toBeUndefined();
    }
  });

  it('opens the video-shop reads, with POST only for the two searches', () => {
    const endpoints = endpointsOf('video-shop');
    expect(endpoints.filter((e) => e.method === 'POST').map((e) => e.path)).toEqual([
      '/order/202309/orders/search',
      '/product/202309/products/search',
      '/product/202502/products/search',
    ]);
    expect(endpoints.every((e) => e.method === 'GET' || e.body?.schema !== undefined)).toBe(true);
    const search = findEndpoint('video-shop', '/order/202309/orders/search')!;
    expect(isAllowedMethod(search, 'POST')).toBe(true);
    expect(isAllowedMethod(search, 'GET')).toBe(false);
    expect(isAllowedMethod(findEndpoint('video-shop', '/order/202309/orders')!, 'POST')).toBe(false);
  });

  it.each([
    '/order/202309/orders/576461413038785752/cancel',
    '/product/202309/products',
    '/product/202309/products/activate',
    '/event/202309/webhooks',
    '/order/202309/orders/search/',
    '/order/202309/Orders/search',
    '/order/202309/orders%2Fsearch',
    '/api/v2/token/refresh',
  ])('does not open the video-shop write or disguised path %j', (path) => {
    expect(findEndpoint('video-shop', path)).toBeUndefined();
  });

  it('opens each marketplace app only on its own APIs, all GET', () => {
    expect(endpointsOf('marketplace').every((e) => /^\/api\/v2\/(shop|order|product)\//.test(e.path))).toBe(true);
    expect(endpointsOf('marketplace-ads').every((e) => e.path.startsWith('/api/v2/ads/'))).toBe(true);
    expect(endpointsOf('marketplace-affiliate').every((e) => e.path.startsWith('/api/v2/ams/'))).toBe(true);
    for (const provider of ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const) {
      expect(endpointsOf(provider).every((e) => e.method === 'GET')).toBe(true);
    }
    expect(findEndpoint('marketplace', '/api/v2/ads/get_total_balance')).toBeUndefined();
    expect(findEndpoint('marketplace-ads', '/api/v2/shop/get_shop_info')).toBeUndefined();
    expect(findEndpoint('marketplace-affiliate', '/api/v2/order/get_order_list')).toBeUndefined();
  });

  it.each([
    ['marketplace', '/api/v2/order/cancel_order'],
    ['marketplace', '/api/v2/logistics/ship_order'],
    ['marketplace', '/api/v2/product/add_item'],
    ['marketplace', '/api/v2/product/update_item'],
    ['marketplace', '/api/v2/auth/token/get'],
    ['marketplace', '/api/v2/auth/access_token/get'],
    ['marketplace', '/api/v2/shop/get_shop_info/'],
    ['marketplace', '/api/v2/shop/get%5Fshop%5Finfo'],
    ['marketplace-ads', '/api/v2/ads/create_product_level_campaign'],
    ['marketplace-ads', '/api/v2/ads/edit_product_level_campaign_setting_info'],
  ] as const)('does not open the %s write or disguised path %j', (provider, path) => {
    expect(findEndpoint(provider, path)).toBeUndefined();
  });

  describe('path templates', () => {
    const template = { path: '/api/v5/campaigns/{campaignId}/adgroups' } as EndpointSpec;
    const exact = { path: '/api/v5/campaigns' } as EndpointSpec;
    const allowlist = buildAllowlist([template, exact]);

    it('match digits in a typed segment, on the raw path', () => {
      expect(matchAllowlist(allowlist, '/api/v5/campaigns/123456789012/adgroups')).toBe(template);
      expect(matchAllowlist(allowlist, '/api/v5/campaigns')).toBe(exact);
    });

    it.each([
      '/api/v5/campaigns//adgroups',
      '/api/v5/campaigns/12a/adgroups',
      '/api/v5/campaigns/%31%32/adgroups',
      '/api/v5/campaigns/1/../2/adgroups',
      '/api/v5/campaigns/1/adgroups/',
      '/api/v5/campaigns/1;x/adgroups',
      '/api/v5/campaigns/1/2/adgroups',
      '/api/v5/campaigns/123456789012345678901/adgroups',
      '/api/v5/campaigns/\u0661/adgroups',
    ])('refuse %j', (path) => {
      expect(matchAllowlist(allowlist, path)).toBeUndefined();
    });
  });
});
