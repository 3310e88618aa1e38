import { allProviders, apiVersionOf, type EndpointSpec } from '@gateway/catalogue';

/** Where the gateway lists the platform API versions being retired (public, no key: it is documentation). */
export const DEPRECATIONS_PATH = '/v1/deprecations';

const NO_HEADERS: Record<string, string> = {};

function headersOf(endpoint: EndpointSpec): Record<string, string> {
  const version = apiVersionOf(endpoint);
  if (version?.sunset === undefined && version?.deprecatedSince === undefined) return NO_HEADERS;
  const headers: Record<string, string> = {};
  if (version.deprecatedSince !== undefined) {
    headers['Deprecation'] = `@${Math.floor(Date.parse(`${version.deprecatedSince}T00:00:00Z`) / 1000)}`;
  }
  if (version.sunset !== undefined) headers['Sunset'] = new Date(`${version.sunset}T00:00:00Z`).toUTCString();
  headers['Link'] = `<${DEPRECATIONS_PATH}>; rel="deprecation"; type="application/json"`;
  return headers;
}

/** Computed once per catalogue endpoint: the hot path does one map lookup. */
const HEADERS_BY_ENDPOINT: ReadonlyMap<EndpointSpec, Record<string, string>> = new Map(
  allProviders().flatMap((provider) => provider.endpoints.map((endpoint) => [endpoint, headersOf(endpoint)] as const)),
);

/**
 * Deprecation (RFC 9745) and Sunset (RFC 8594) headers for an endpoint of a retiring platform API version, with a
 * Link to the gateway's list of retirements; empty for every other endpoint.
 */
export function lifecycleHeaders(endpoint: EndpointSpec | undefined): Record<string, string> {
  return (endpoint && HEADERS_BY_ENDPOINT.get(endpoint)) ?? NO_HEADERS;
}

/** The body of GET /v1/deprecations: every retiring version, its dates and what to do. */
export function deprecationsDocument(): object {
  return {
    deprecations: allProviders().flatMap((provider) =>
      (provider.apiVersions ?? [])
        .filter((version) => version.sunset !== undefined || version.deprecatedSince !== undefined)
        .map((version) => ({
          provider: provider.id,
          version: version.name,
          paths: `/v1/${provider.id}${version.pathPrefix}...`,
          deprecated_since: version.deprecatedSince ?? null,
          sunset: version.sunset ?? null,
          notice: version.notice ?? null,
          documentation: version.migrationDoc ?? null,
        })),
    ),
  };
}
