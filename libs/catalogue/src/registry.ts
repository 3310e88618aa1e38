import { MARKETPLACE } from './providers/marketplace';
import { MARKETPLACE_ADS } from './providers/marketplace-ads';
import { MARKETPLACE_AFFILIATE } from './providers/marketplace-affiliate';
import { SEARCH_ADS } from './providers/search-ads';
import { VIDEO_ADS } from './providers/video-ads';
import { VIDEO_SHOP } from './providers/video-shop';
import { PROVIDER_IDS, type ApiVersionSpec, type EndpointSpec, type ProviderId, type ProviderSpec } from './types';

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

const PROVIDERS: ReadonlyMap<ProviderId, ProviderSpec> = new Map(REGISTERED.map((spec) => [spec.id, spec]));

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

/** provider -> its allowlist. Nothing is normalised before lookup. */
const ALLOWLIST: ReadonlyMap<ProviderId, Allowlist> = new Map(
  REGISTERED.map((provider) => [provider.id, buildAllowlist(provider.endpoints)]),
);

const PROVIDER_ID_SET: ReadonlySet<string> = new Set(PROVIDER_IDS);

export function isProviderId(value: string): value is ProviderId {
  return PROVIDER_ID_SET.has(value);
}

/** The provider's catalogue, or undefined while the provider has no endpoint open. */
export function providerSpec(provider: ProviderId): ProviderSpec | undefined {
  return PROVIDERS.get(provider);
}

/** The providers with open endpoints, in registration order. */
export function allProviders(): ProviderSpec[] {
  return [...REGISTERED];
}

export function endpointsOf(provider: ProviderId): readonly EndpointSpec[] {
  return PROVIDERS.get(provider)?.endpoints ?? [];
}

/**
 * The allowlist check. `path` is the raw path after /v1/<provider>, exactly as it arrived (not decoded,
 * not normalised): an encoded, doubled, dotted, re-cased or re-slashed variant is simply not in the map and
 * matches no template (whose id segments take digits only), so it can never be taken for an allowed path
 * (spec 4.2, 4.3 rule 3). The method is checked separately (isAllowedMethod).
 */
export function findEndpoint(provider: ProviderId, path: string): EndpointSpec | undefined {
  const allowlist = ALLOWLIST.get(provider);
  return allowlist === undefined ? undefined : matchAllowlist(allowlist, path);
}

/** Only the endpoint's own method is a read: a POST to a GET path is refused like a write. */
export function isAllowedMethod(endpoint: EndpointSpec, method: string): boolean {
  return method === endpoint.method;
}

/** The platform path for an allowed raw path: the provider's upstream prefix, then the path as it came. */
export function upstreamPathOf(endpoint: EndpointSpec, rawPath: string): string {
  return `${PROVIDERS.get(endpoint.provider)?.upstreamPrefix ?? ''}${rawPath}`;
}

/** The API version an endpoint belongs to, when its provider declares versions. */
export function apiVersionOf(endpoint: EndpointSpec): ApiVersionSpec | undefined {
  return PROVIDERS.get(endpoint.provider)?.apiVersions?.find((version) => endpoint.path.startsWith(version.pathPrefix));
}
