import { PROVIDER_IDS, endpointsOf, findEndpoint, isProviderId } from './index';

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
    expect(endpoints.every((endpoint) => endpoint.upstreamPath === `/open_api${endpoint.path}`)).toBe(true);
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

  it('has no endpoints yet for the other providers', () => {
    expect(endpointsOf('search-ads')).toEqual([]);
    expect(findEndpoint('marketplace', '/v1.3/campaign/get/')).toBeUndefined();
  });

  it('says which endpoint needs the service app credentials', () => {
    expect(findEndpoint('video-ads', '/v1.3/oauth2/advertiser/get/')?.needsAppCredentials).toBe(true);
    expect(findEndpoint('video-ads', '/v1.3/campaign/get/')?.needsAppCredentials).toBe(false);
  });
});
