import { SEARCH_ADS } from './providers/search-ads';
import { CATALOGUE, createCatalogue } from './registry';
import type { ApiVersionSpec, EndpointSpec, EnvelopeSpec, ProviderSpec } from './types';

// A successor that exists only in this test: its own prefix, envelope, upstream prefix and headers. The shipped
// catalogue does not serve the platform's successor yet (docs/providers.md, search-ads).
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

function endpoint(path: string): EndpointSpec {
  return {
    provider: 'search-ads',
    path,
    method: 'GET',
    title: `Test ${path}`,
    summary: 'A read of the test-only successor.',
    keywords: [],
    params: [],
    returns: 'result',
  };
}

const NEXT_ENDPOINTS = [endpoint('/api/v1/campaigns'), endpoint('/api/v1/campaigns/{campaignId}')];
/** search-ads as shipped, with the test-only version and its endpoints beside v5: v5's definition is reused as is. */
const WITH_NEXT: ProviderSpec = {
  ...SEARCH_ADS,
  apiVersions: [...SEARCH_ADS.apiVersions!, NEXT],
  endpoints: [...SEARCH_ADS.endpoints, ...NEXT_ENDPOINTS],
};

describe('catalogue API versions', () => {
  const catalogue = createCatalogue([WITH_NEXT]);

  it('reads every v5 endpoint exactly as the shipped catalogue does when a second version sits beside it', () => {
    for (const shipped of SEARCH_ADS.endpoints) {
      const path = shipped.path.replace(/\{[A-Za-z]+\}/g, '1234567890');
      const found = catalogue.findEndpoint('search-ads', path)!;
      expect(found).toBe(shipped);
      expect(catalogue.apiVersionOf(found)).toBe(CATALOGUE.apiVersionOf(shipped));
      expect(catalogue.apiVersionOf(found)?.name).toBe('v5');
      expect(catalogue.envelopeOf(found)).toBe(SEARCH_ADS.envelope);
      expect(catalogue.envelopeOf(found)).toBe(CATALOGUE.envelopeOf(shipped));
      expect(catalogue.ownedHeadersOf(found)).toEqual(['Authorization', 'X-AP-Context']);
      expect(catalogue.upstreamPathOf(found, path)).toBe(CATALOGUE.upstreamPathOf(shipped, path));
      expect(catalogue.upstreamPathOf(found, path)).toBe(path);
    }
  });

  it("gives the second version's endpoints its own envelope, upstream prefix and owned headers", () => {
    const found = catalogue.findEndpoint('search-ads', '/api/v1/campaigns/9007199254740993')!;
    expect(found).toBe(NEXT_ENDPOINTS[1]);
    expect(catalogue.apiVersionOf(found)).toBe(NEXT);
    expect(catalogue.envelopeOf(found)).toBe(NEXT_ENVELOPE);
    expect(catalogue.ownedHeadersOf(found)).toEqual(['Authorization', 'X-Test-Context']);
    expect(catalogue.upstreamPathOf(found, '/api/v1/campaigns/9007199254740993')).toBe(
      '/next/api/v1/campaigns/9007199254740993',
    );
  });

  it("falls back to the provider's envelope, prefix and headers where a version says nothing", () => {
    const bare: ProviderSpec = {
      ...WITH_NEXT,
      apiVersions: [...SEARCH_ADS.apiVersions!, { name: 'bare', pathPrefix: '/api/v1/' }],
    };
    const plain = createCatalogue([bare]);
    const found = plain.findEndpoint('search-ads', '/api/v1/campaigns')!;
    expect(plain.apiVersionOf(found)?.name).toBe('bare');
    expect(plain.envelopeOf(found)).toBe(SEARCH_ADS.envelope);
    expect(plain.ownedHeadersOf(found)).toBe(SEARCH_ADS.ownedHeaders);
    expect(plain.upstreamPathOf(found, '/api/v1/campaigns')).toBe('/api/v1/campaigns');
  });

  it('leaves the shipped catalogue without the test-only version', () => {
    expect(CATALOGUE.findEndpoint('search-ads', '/api/v1/campaigns')).toBeUndefined();
    expect(SEARCH_ADS.apiVersions!.map((version) => version.name)).toEqual(['v5']);
  });

  it("reads the endpoints of providers without versions with the provider's own envelope and prefix", () => {
    for (const provider of ['video-ads', 'video-shop', 'marketplace'] as const) {
      const spec = CATALOGUE.providerSpec(provider)!;
      for (const shipped of spec.endpoints) {
        expect(CATALOGUE.apiVersionOf(shipped)).toBeUndefined();
        expect(CATALOGUE.envelopeOf(shipped)).toBe(spec.envelope);
        expect(CATALOGUE.ownedHeadersOf(shipped)).toBe(spec.ownedHeaders);
        expect(CATALOGUE.upstreamPathOf(shipped, shipped.path)).toBe(`${spec.upstreamPrefix}${shipped.path}`);
      }
    }
  });

  it('refuses a catalogue whose endpoint is in no version, or in two', () => {
    const orphan: ProviderSpec = { ...SEARCH_ADS, endpoints: [...SEARCH_ADS.endpoints, endpoint('/api/v1/campaigns')] };
    expect(() => createCatalogue([orphan])).toThrow('/api/v1/campaigns is in 0 API versions');
    const overlapping: ProviderSpec = {
      ...WITH_NEXT,
      apiVersions: [...WITH_NEXT.apiVersions!, { name: 'overlap', pathPrefix: '/api/' }],
    };
    expect(() => createCatalogue([overlapping])).toThrow('is in 2 API versions');
  });
});
