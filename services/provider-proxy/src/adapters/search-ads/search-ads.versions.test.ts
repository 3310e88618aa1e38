import {
  CATALOGUE,
  createCatalogue,
  providerSpec,
  type ApiVersionSpec,
  type EndpointSpec,
  type EnvelopeSpec,
  type ProviderSpec,
} from '@gateway/catalogue';
import { QpsGuard } from '../../limits/qps-guard';
import type { PlatformCall } from '../provider-adapter';
import { SearchAdsAdapter, type SearchAdsAdapterOptions, type SearchAdsVersionWiring } from './search-ads.adapter';

// A successor that exists only in this test, beside v5 as shipped: its own path prefix, envelope, upstream prefix,
// host, context header and context-free path. The gateway does not serve the platform's successor yet.
const SEARCH_ADS = providerSpec('search-ads')!;
const NEXT_ENVELOPE: EnvelopeSpec = {
  codeField: 'error',
  successCode: null,
  tokenErrorCodes: ['UNAUTHENTICATED'],
  errorsUseHttp200: false,
  numericIds: false,
  errorCodeField: 'code',
};
const NEXT: ApiVersionSpec = {
  name: 'next',
  pathPrefix: '/api/v1/',
  envelope: NEXT_ENVELOPE,
  upstreamPrefix: '/next',
  ownedHeaders: ['Authorization', 'X-Test-Context'],
};
const NEXT_WIRING: SearchAdsVersionWiring = {
  apiBaseUrl: 'http://127.0.0.2:9/ads-platform/',
  context: { header: 'x-test-context', key: 'adAccountId', attribute: 'ad_account_id', lacking: 'ad account' },
  withoutContext: ['/api/v1/me'],
  responseHeaders: ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
};

function endpoint(path: string, method: 'GET' | 'POST' = 'GET'): EndpointSpec {
  return {
    provider: 'search-ads',
    path,
    method,
    title: `Test ${path}`,
    summary: 'A read of the test-only successor.',
    keywords: [],
    params: [],
    returns: 'result',
  };
}

const WITH_NEXT: ProviderSpec = {
  ...SEARCH_ADS,
  apiVersions: [...SEARCH_ADS.apiVersions!, NEXT],
  endpoints: [...SEARCH_ADS.endpoints, endpoint('/api/v1/me'), endpoint('/api/v1/campaigns/{campaignId}')],
};
const TEST_CATALOGUE = createCatalogue([WITH_NEXT]);

const credentials = {
  access_token: 'tok-1',
  access_token_expires_at: '2026-11-25T13:00:00.000Z',
  attributes: { org_id: '40669820', ad_account_id: '9007199254740993' },
};

function adapterWith(options: Partial<SearchAdsAdapterOptions> = {}): SearchAdsAdapter {
  return new SearchAdsAdapter({
    apiBaseUrl: 'http://127.0.0.1:9/search-ads',
    authBaseUrl: 'http://127.0.0.1:9/search-ads-auth',
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    renewAheadMs: 60_000,
    ...options,
  });
}
const shipped = adapterWith();
const withNext = adapterWith({ catalogue: TEST_CATALOGUE, versions: { next: NEXT_WIRING } });

function call(catalogue: typeof CATALOGUE, path: string, query = '', body?: string): PlatformCall {
  const found = catalogue.findEndpoint('search-ads', path)!;
  return {
    endpoint: found,
    method: found.method,
    path,
    query,
    body: body === undefined ? undefined : Buffer.from(body),
  };
}

describe('search-ads adapter API versions', () => {
  it('prepares every v5 call exactly as before when a second version is wired beside it', () => {
    for (const spec of SEARCH_ADS.endpoints) {
      const path = spec.path.replace(/\{[A-Za-z]+\}/g, '1234567890');
      const body = spec.method === 'POST' ? '{"startTime":"2026-11-01"}' : undefined;
      const before = shipped.prepare(call(CATALOGUE, path, 'limit=5', body), credentials);
      const after = withNext.prepare(call(TEST_CATALOGUE, path, 'limit=5', body), credentials);
      expect(after).toEqual(before);
      expect(after.ok && after.request.origin).toBe('http://127.0.0.1:9');
      expect(withNext.responseHeadersOf(call(TEST_CATALOGUE, path).endpoint)).toEqual([
        'x-rate-limit',
        'x-apple-jingle-correlation-key',
      ]);
    }
    const campaigns = withNext.prepare(call(TEST_CATALOGUE, '/api/v5/campaigns'), credentials);
    expect(campaigns.ok && campaigns.request.headers['x-ap-context']).toBe('orgId=40669820');
    expect(withNext.responseHeaders).toEqual(shipped.responseHeaders);
  });

  it("sends the second version's calls to its own host with its own prefix and context header", () => {
    const prepared = withNext.prepare(
      call(TEST_CATALOGUE, '/api/v1/campaigns/9007199254740993', 'limit=5'),
      credentials,
    );
    if (!prepared.ok) throw new Error(prepared.failure.detail);
    expect(prepared.request.origin).toBe('http://127.0.0.2:9');
    expect(prepared.request.pathAndQuery).toBe('/ads-platform/next/api/v1/campaigns/9007199254740993?limit=5');
    expect(prepared.request.headers).toEqual({
      authorization: 'Bearer tok-1',
      'accept-encoding': 'identity',
      accept: 'application/json',
      'x-test-context': 'adAccountId=9007199254740993',
    });
    expect(TEST_CATALOGUE.envelopeOf(call(TEST_CATALOGUE, '/api/v1/me').endpoint)).toBe(NEXT_ENVELOPE);
    expect(withNext.responseHeadersOf(call(TEST_CATALOGUE, '/api/v1/me').endpoint)).toEqual(
      NEXT_WIRING.responseHeaders,
    );
  });

  it("goes without context only on the second version's own context-free paths", () => {
    const me = withNext.prepare(call(TEST_CATALOGUE, '/api/v1/me'), credentials);
    expect(me.ok && me.request.headers).toEqual({
      authorization: 'Bearer tok-1',
      'accept-encoding': 'identity',
      accept: 'application/json',
    });
    const withoutAccount = withNext.prepare(call(TEST_CATALOGUE, '/api/v1/campaigns/1'), {
      ...credentials,
      attributes: { org_id: '40669820' },
    });
    expect(withoutAccount).toMatchObject({
      ok: false,
      failure: { code: 'connection_unavailable', detail: 'the connection has no ad account' },
    });
  });

  it('refuses the endpoints of a version this deployment has not wired, before any platform call', () => {
    const unwired = adapterWith({ catalogue: TEST_CATALOGUE });
    expect(unwired.prepare(call(TEST_CATALOGUE, '/api/v1/campaigns/1'), credentials)).toMatchObject({
      ok: false,
      failure: { code: 'path_not_allowed' },
    });
    const v5 = unwired.prepare(call(TEST_CATALOGUE, '/api/v5/acls'), credentials);
    expect(v5).toEqual(shipped.prepare(call(CATALOGUE, '/api/v5/acls'), credentials));
  });
});
