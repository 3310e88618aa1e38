/**
 * How a client's redirect URIs are accepted. The first assistant product registers exact callback URIs; the
 * second one's callback carries a per-connector segment under a fixed address prefix (spec 5.3 rule 4).
 */
export type RedirectRule = { kind: 'exact'; uris: readonly string[] } | { kind: 'prefix'; prefix: string };

const MAX_REDIRECT_URI_LENGTH = 2048;
/** One path segment of unreserved characters, not a dot segment ("." or ".."). */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._~-]{1,200}$/;

/**
 * True when `candidate` is acceptable under the rule. Both forms compare the raw string, never a normalised URL:
 * exact URIs match byte for byte (OAuth 2.1 section 2.3.1), and a prefix match requires the raw string to begin
 * with the prefix (so scheme, host, absence of userinfo and of a port are the prefix's own) followed by exactly
 * one safe segment: no further slash, no percent-encoding (so no encoded slash or dot), no dot segment, no query
 * and no fragment. The parsed URL must then agree with the raw string, which catches anything a parser would read
 * differently (backslashes, tabs and other characters URL parsing strips or rewrites).
 */
export function matchesRedirectRule(rule: RedirectRule, candidate: unknown): candidate is string {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > MAX_REDIRECT_URI_LENGTH) {
    return false;
  }
  if (rule.kind === 'exact') return rule.uris.includes(candidate);
  if (!candidate.startsWith(rule.prefix)) return false;
  if (!SEGMENT.test(candidate.slice(rule.prefix.length))) return false;
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    return false;
  }
  const prefix = new URL(rule.prefix);
  return (
    parsed.href === candidate &&
    parsed.protocol === prefix.protocol &&
    parsed.hostname === prefix.hostname &&
    parsed.port === '' &&
    parsed.username === '' &&
    parsed.password === '' &&
    parsed.search === '' &&
    parsed.hash === ''
  );
}

/**
 * Why a configured redirect URI or prefix is unfit, or null. https only, except http on a loopback host when
 * `allowLoopbackHttp` (development); no userinfo, port, query or fragment; a prefix ends with "/".
 */
export function redirectConfigProblem(
  value: string,
  kind: 'exact' | 'prefix',
  allowLoopbackHttp: boolean,
): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(allowLoopbackHttp && url.protocol === 'http:' && loopback)) {
    return 'must be https';
  }
  if (url.href !== value) return 'must be written in normal form';
  if (url.username !== '' || url.password !== '') return 'must not carry userinfo';
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    return 'must not carry a query or fragment';
  }
  if (kind === 'prefix') {
    if (url.port !== '') return 'must not carry a port';
    if (!url.pathname.endsWith('/')) return 'must end with "/"';
  }
  return null;
}
