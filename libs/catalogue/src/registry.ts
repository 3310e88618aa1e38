import { MARKETPLACE } from './providers/marketplace';
import { MARKETPLACE_ADS } from './providers/marketplace-ads';
import { MARKETPLACE_AFFILIATE } from './providers/marketplace-affiliate';
import { SEARCH_ADS } from './providers/search-ads';
import { VIDEO_ADS } from './providers/video-ads';
import { VIDEO_SHOP } from './providers/video-shop';
import {
  PROVIDER_IDS,
  type ApiVersionSpec,
  type EndpointSpec,
  type EnvelopeSpec,
  type ProviderId,
  type ProviderSpec,
} from './types';

/**
 * The providers whose endpoints are open: one line per provider. An id of PROVIDER_IDS not listed here is
 * known (a request gets path_not_allowed rather than unknown_provider) but has no endpoint.
 */
const REGISTERED: readonly ProviderSpec[] = [
  VIDEO_ADS,
  VIDEO_SHOP,
  MARKETPLACE,
  MARKETPLACE_ADS,
  MARKETPLACE_AFFILIATE,
  SEARCH_ADS,
];

/** A `{name}` segment of a path template: an id, digits only. */
const TYPED_SEGMENT = /^\{[A-Za-z][A-Za-z0-9_]*\}$/;
const DIGITS_SEGMENT = '[0-9]{1,20}';

interface TemplateRoute {
  pattern: RegExp;
  endpoint: EndpointSpec;
}

export interface Allowlist {
  exact: ReadonlyMap<string, EndpointSpec>;
  templates: readonly TemplateRoute[];
}

function isTemplate(path: string): boolean {
  return path.split('/').some((segment) => TYPED_SEGMENT.test(segment));
}

function templatePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (TYPED_SEGMENT.test(segment) ? DIGITS_SEGMENT : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Exact paths in a map, templates as anchored patterns. Exported for tests. */
export function buildAllowlist(endpoints: readonly EndpointSpec[]): Allowlist {
  return {
    exact: new Map(endpoints.filter((e) => !isTemplate(e.path)).map((endpoint) => [endpoint.path, endpoint])),
    templates: endpoints
      .filter((endpoint) => isTemplate(endpoint.path))
      .map((endpoint) => ({ pattern: templatePattern(endpoint.path), endpoint })),
  };
}

/** The endpoint a raw path is, or undefined. Exported for tests. */
export function matchAllowlist(allowlist: Allowlist, path: string): EndpointSpec | undefined {
  const exact = allowlist.exact.get(path);
  if (exact !== undefined) return exact;
  if (path.length > 512) return undefined;
  return allowlist.templates.find((route) => route.pattern.test(path))?.endpoint;
}

/**
 * The catalogue of a set of providers: the allowlist and, per endpoint, what its API version says (or its
 * provider, when the version says nothing). The gateway serves the one of REGISTERED; tests build their own, e.g.
 * with a test-only version beside a real one.
 */
export interface Catalogue {
  providerSpec(provider: ProviderId): ProviderSpec | undefined;
  endpointsOf(provider: ProviderId): readonly EndpointSpec[];
  /** The allowlist check, on the raw path (see findEndpoint below). */
  findEndpoint(provider: ProviderId, path: string): EndpointSpec | undefined;
  /** The API version an endpoint belongs to, when its provider declares versions. */
  apiVersionOf(endpoint: EndpointSpec): ApiVersionSpec | undefined;
  /** How the answers of the endpoint are read: its version's envelope, else its provider's. */
  envelopeOf(endpoint: EndpointSpec): EnvelopeSpec | undefined;
  /** The headers the service sets on the endpoint's calls: its version's, else its provider's. */
  ownedHeadersOf(endpoint: EndpointSpec): readonly string[];
  /** The platform path for an allowed raw path: the version's (else the provider's) prefix, then the path. */
  upstreamPathOf(endpoint: EndpointSpec, rawPath: string): string;
}

/**
 * Builds a catalogue. A provider with API versions must place each endpoint in exactly one of them: an endpoint
 * outside every version, or inside two, would be read with the wrong envelope or sent to the wrong platform.
 */
export function createCatalogue(providers: readonly ProviderSpec[]): Catalogue {
  const specs: ReadonlyMap<ProviderId, ProviderSpec> = new Map(providers.map((spec) => [spec.id, spec]));
  const allowlists: ReadonlyMap<ProviderId, Allowlist> = new Map(
    providers.map((provider) => [provider.id, buildAllowlist(provider.endpoints)]),
  );
  for (const provider of providers) {
    if (provider.apiVersions === undefined) continue;
    for (const endpoint of provider.endpoints) {
      const count = provider.apiVersions.filter((version) => endpoint.path.startsWith(version.pathPrefix)).length;
      if (count !== 1) {
        throw new Error(`${provider.id} ${endpoint.path} is in ${count} API versions; it must be in exactly one`);
      }
    }
  }
  const apiVersionOf = (endpoint: EndpointSpec): ApiVersionSpec | undefined =>
    specs.get(endpoint.provider)?.apiVersions?.find((version) => endpoint.path.startsWith(version.pathPrefix));
  return {
    providerSpec: (provider) => specs.get(provider),
    endpointsOf: (provider) => specs.get(provider)?.endpoints ?? [],
    findEndpoint: (provider, path) => {
      const allowlist = allowlists.get(provider);
      return allowlist === undefined ? undefined : matchAllowlist(allowlist, path);
    },
    apiVersionOf,
    envelopeOf: (endpoint) => apiVersionOf(endpoint)?.envelope ?? specs.get(endpoint.provider)?.envelope,
    ownedHeadersOf: (endpoint) =>
      apiVersionOf(endpoint)?.ownedHeaders ?? specs.get(endpoint.provider)?.ownedHeaders ?? [],
    upstreamPathOf: (endpoint, rawPath) =>
      `${apiVersionOf(endpoint)?.upstreamPrefix ?? specs.get(endpoint.provider)?.upstreamPrefix ?? ''}${rawPath}`,
  };
}

/** The gateway's catalogue: the providers of REGISTERED. */
export const CATALOGUE: Catalogue = createCatalogue(REGISTERED);

/**
 * Compared one by one: a Set lookup makes V8 internalize the caller's string first (a path segment, new on every
 * request), which cost more than six comparisons that mostly stop at the length.
 */
export function isProviderId(value: string): value is ProviderId {
  for (let i = 0; i < PROVIDER_IDS.length; i++) if (PROVIDER_IDS[i] === value) return true;
  return false;
}

/** The provider's catalogue, or undefined while the provider has no endpoint open. */
export function providerSpec(provider: ProviderId): ProviderSpec | undefined {
  return CATALOGUE.providerSpec(provider);
}

/** The providers with open endpoints, in registration order. */
export function allProviders(): ProviderSpec[] {
  return [...REGISTERED];
}

export function endpointsOf(provider: ProviderId): readonly EndpointSpec[] {
  return CATALOGUE.endpointsOf(provider);
}

/**
 * The allowlist check. `path` is the raw path after /v1/<provider>, exactly as it arrived (not decoded,
 * not normalised): an encoded, doubled, dotted, re-cased or re-slashed variant is simply not in the map and
 * matches no template (whose id segments take digits only), so it can never be taken for an allowed path
 * (spec 4.2, 4.3 rule 3). The method is checked separately (isAllowedMethod).
 */
export function findEndpoint(provider: ProviderId, path: string): EndpointSpec | undefined {
  return CATALOGUE.findEndpoint(provider, path);
}

/** Only the endpoint's own method is a read: a POST to a GET path is refused like a write. */
export function isAllowedMethod(endpoint: EndpointSpec, method: string): boolean {
  return method === endpoint.method;
}

/** The platform path for an allowed raw path: the upstream prefix of its version or provider, then the path. */
export function upstreamPathOf(endpoint: EndpointSpec, rawPath: string): string {
  return CATALOGUE.upstreamPathOf(endpoint, rawPath);
}

/** The API version an endpoint belongs to, when its provider declares versions. */
export function apiVersionOf(endpoint: EndpointSpec): ApiVersionSpec | undefined {
  return CATALOGUE.apiVersionOf(endpoint);
}

/** How the endpoint's answers are read: the envelope of its API version, else its provider's. */
export function envelopeOf(endpoint: EndpointSpec): EnvelopeSpec | undefined {
  return CATALOGUE.envelopeOf(endpoint);
}

/** The headers the service sets on the endpoint's calls: its API version's, else its provider's. */
export function ownedHeadersOf(endpoint: EndpointSpec): readonly string[] {
  return CATALOGUE.ownedHeadersOf(endpoint);
}
