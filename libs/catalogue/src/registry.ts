import { VIDEO_ADS } from './providers/video-ads';
import { PROVIDER_IDS, type EndpointSpec, type ProviderId, type ProviderSpec } from './types';

/**
 * Providers whose endpoints are not opened yet: they are known ids (spec section 1), so a request gets
 * path_not_allowed rather than unknown_provider.
 */
const PENDING: Record<Exclude<ProviderId, 'video-ads'>, Omit<ProviderSpec, 'endpoints'>> = {
  'video-shop': { id: 'video-shop', title: 'Video shop (Shop Partner API)', connectionUnit: '1 shop' },
  marketplace: {
    id: 'marketplace',
    title: 'Marketplace (Open Platform v2)',
    connectionUnit: '1 shop on that platform',
  },
  'marketplace-ads': {
    id: 'marketplace-ads',
    title: 'Marketplace ads (Open Platform v2, ads app)',
    connectionUnit: '1 shop on that platform',
  },
  'marketplace-affiliate': {
    id: 'marketplace-affiliate',
    title: 'Marketplace affiliate (Open Platform v2, affiliate app)',
    connectionUnit: '1 shop on that platform',
  },
  'search-ads': { id: 'search-ads', title: 'Search ads (API v5)', connectionUnit: '1 advertising account' },
};

const PROVIDERS: ReadonlyMap<ProviderId, ProviderSpec> = new Map<ProviderId, ProviderSpec>([
  [VIDEO_ADS.id, VIDEO_ADS],
  ...Object.values(PENDING).map((spec): [ProviderId, ProviderSpec] => [spec.id, { ...spec, endpoints: [] }]),
]);

/** provider -> exact path -> endpoint. The allowlist is this map; nothing is normalised before lookup. */
const ALLOWLIST: ReadonlyMap<ProviderId, ReadonlyMap<string, EndpointSpec>> = new Map(
  [...PROVIDERS.values()].map((provider) => [
    provider.id,
    new Map(provider.endpoints.map((endpoint) => [endpoint.path, endpoint])),
  ]),
);

const PROVIDER_ID_SET: ReadonlySet<string> = new Set(PROVIDER_IDS);

export function isProviderId(value: string): value is ProviderId {
  return PROVIDER_ID_SET.has(value);
}

export function providerSpec(provider: ProviderId): ProviderSpec {
  return PROVIDERS.get(provider)!;
}

export function allProviders(): ProviderSpec[] {
  return [...PROVIDERS.values()];
}

export function endpointsOf(provider: ProviderId): readonly EndpointSpec[] {
  return PROVIDERS.get(provider)?.endpoints ?? [];
}

/**
 * The allowlist check. `path` is the raw path after /v1/<provider>, exactly as it arrived (not decoded,
 * not normalised): an encoded, doubled, dotted, re-cased or re-slashed variant is simply not in the map,
 * so it can never be taken for an allowed path (spec 4.2, 4.3 rule 3).
 */
export function findEndpoint(provider: ProviderId, path: string): EndpointSpec | undefined {
  return ALLOWLIST.get(provider)?.get(path);
}
