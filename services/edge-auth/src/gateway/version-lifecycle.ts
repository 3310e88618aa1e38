import { allProviders, type ApiVersionSpec, type ProviderId } from '@gateway/catalogue';
import { escapeHtml } from '@gateway/errors';

/** Where the gateway lists the platform API versions being retired (public, no key: it is documentation). */
export const DEPRECATIONS_PATH = '/v1/deprecations';

const NO_HEADERS: Record<string, string> = {};

interface RetiringVersion {
  provider: ProviderId;
  version: ApiVersionSpec;
  /** The gateway's page about this retirement, the target of the Link header. */
  pagePath: string;
  headers: Record<string, string>;
}

function isRetiring(version: ApiVersionSpec): boolean {
  return version.sunset !== undefined || version.deprecatedSince !== undefined;
}

function headersOf(version: ApiVersionSpec, pagePath: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (version.deprecatedSince !== undefined) {
    headers['Deprecation'] = `@${Math.floor(Date.parse(`${version.deprecatedSince}T00:00:00Z`) / 1000)}`;
  }
  if (version.sunset !== undefined) headers['Sunset'] = new Date(`${version.sunset}T00:00:00Z`).toUTCString();
  // RFC 9745 section 3 and RFC 8594 section 6: both relations point at human-readable documentation.
  headers['Link'] = `<${pagePath}>; rel="deprecation"; type="text/html", <${pagePath}>; rel="sunset"; type="text/html"`;
  return headers;
}

/** Computed once: the hot path looks up the provider and compares a prefix or two. */
const RETIRING_BY_PROVIDER: ReadonlyMap<ProviderId, readonly RetiringVersion[]> = new Map(
  allProviders().map((provider) => [
    provider.id,
    (provider.apiVersions ?? []).filter(isRetiring).map((version) => {
      const pagePath = `${DEPRECATIONS_PATH}/${provider.id}/${version.name}`;
      return { provider: provider.id, version, pagePath, headers: headersOf(version, pagePath) };
    }),
  ]),
);

function retiringVersionOf(provider: ProviderId, path: string): RetiringVersion | undefined {
  return RETIRING_BY_PROVIDER.get(provider)?.find((retiring) => path.startsWith(retiring.version.pathPrefix));
}

/**
 * Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers for every answer to a path of a retiring platform API
 * version, whether the platform answered it or the gateway refused it; empty for every other path.
 */
export function lifecycleHeaders(provider: ProviderId, path: string): Record<string, string> {
  return retiringVersionOf(provider, path)?.headers ?? NO_HEADERS;
}

/** The body of GET /v1/deprecations: every retiring version, its dates and what to do. */
export function deprecationsDocument(): object {
  return {
    deprecations: [...RETIRING_BY_PROVIDER.values()].flat().map(({ provider, version, pagePath }) => ({
      provider,
      version: version.name,
      paths: `/v1/${provider}${version.pathPrefix}...`,
      deprecated_since: version.deprecatedSince ?? null,
      sunset: version.sunset ?? null,
      notice: version.notice ?? null,
      migration: version.migration ?? [],
      documentation: pagePath,
    })),
  };
}

/** The page GET /v1/deprecations/{provider}/{version} serves, or undefined when no such version is retiring. */
export function deprecationPage(provider: string, versionName: string): string | undefined {
  const retiring = [...RETIRING_BY_PROVIDER.values()]
    .flat()
    .find((candidate) => candidate.provider === provider && candidate.version.name === versionName);
  if (!retiring) return undefined;
  const { version } = retiring;
  const title = `${provider}: API ${version.name} is retiring`;
  const dates = [
    version.deprecatedSince !== undefined ? `<li>Deprecated since ${escapeHtml(version.deprecatedSince)}</li>` : '',
    version.sunset !== undefined ? `<li>Retired by the platform on ${escapeHtml(version.sunset)}</li>` : '',
  ].join('');
  const steps = (version.migration ?? []).map((step) => `<li>${escapeHtml(step)}</li>`).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>` +
    `<h1>${escapeHtml(title)}</h1>` +
    `<p>Paths: <code>${escapeHtml(`/v1/${provider}${version.pathPrefix}`)}...</code></p>` +
    `<ul>${dates}</ul>` +
    (version.notice !== undefined ? `<p>${escapeHtml(version.notice)}</p>` : '') +
    (steps !== '' ? `<h2>What to do</h2><ol>${steps}</ol>` : '') +
    `<p>Every retiring version, as JSON: <a href="${DEPRECATIONS_PATH}">${DEPRECATIONS_PATH}</a></p>` +
    `</body></html>`
  );
}
