import { PROVIDER_IDS, findEndpoint, isProviderId, type EndpointSpec, type ProviderId } from '@gateway/catalogue';

/** Longer request targets are refused outright; no allowed path comes close. */
export const MAX_TARGET_LENGTH = 2048;

export type RequestTarget =
  | { kind: 'me'; query: string }
  | { kind: 'deprecations' }
  /** /v1/deprecations/{provider}/{version}: the page about one retiring version. */
  | { kind: 'deprecation_page'; provider: string; version: string }
  | {
      kind: 'provider';
      provider: ProviderId;
      /** Raw path after /v1/<provider>, exactly as received. */
      path: string;
      /** Raw query string without "?". */
      query: string;
      /** The allowlisted endpoint, when the raw path is byte-identical to one. */
      endpoint: EndpointSpec | undefined;
    }
  | { kind: 'unknown_provider'; segment: string }
  | { kind: 'not_found' };

/**
 * Classifies the raw request target (req.url, never decoded or normalised). Percent-encoding, dot segments,
 * doubled or missing slashes, backslashes, `;` parameters and case changes all leave the path unequal to every
 * allowlisted path, so they are refused without any decoding step that could be tricked (spec 4.2).
 */
export function classifyTarget(rawUrl: string): RequestTarget {
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rawUrl.slice(queryAt + 1);
  if (path === '/v1/me') return { kind: 'me', query };
  if (path === '/v1/deprecations') return { kind: 'deprecations' };
  if (path.startsWith('/v1/deprecations/')) {
    const [provider = '', version = '', ...extra] = path.slice('/v1/deprecations/'.length).split('/');
    return extra.length === 0 ? { kind: 'deprecation_page', provider, version } : { kind: 'not_found' };
  }
  if (!path.startsWith('/v1/')) return { kind: 'not_found' };
  const rest = path.slice(4);
  const slash = rest.indexOf('/');
  const segment = slash < 0 ? rest : rest.slice(0, slash);
  if (!isProviderId(segment)) {
    // "video-ads\v1.3\..." or "video-ads;x": a known provider with a disguised path, not another provider.
    const disguised = PROVIDER_IDS.find((id) => segment.startsWith(id) && !/[a-z0-9-]/.test(segment[id.length]!));
    if (disguised)
      return { kind: 'provider', provider: disguised, path: rest.slice(disguised.length), query, endpoint: undefined };
    return { kind: 'unknown_provider', segment: segment.slice(0, 64) };
  }
  const providerPath = slash < 0 ? '' : rest.slice(slash);
  const endpoint = rawUrl.length > MAX_TARGET_LENGTH ? undefined : findEndpoint(segment, providerPath);
  return { kind: 'provider', provider: segment, path: providerPath, query, endpoint };
}
