/*
 * The OAuth redirect-URI matcher (services/oauth-server clients/redirect-uri.matcher.ts, spec 5.3 rule 4).
 * Properties: never throws; an exact rule admits only a registered URI byte for byte; a prefix rule admits only
 * the prefix followed by one safe segment, and the WHATWG URL of the candidate has the prefix's origin, no
 * userinfo, port, query or fragment, and the path the prefix's path plus that one segment.
 */
import {
  matchesRedirectRule,
  redirectConfigProblem,
  type RedirectRule,
} from '../../services/oauth-server/src/clients/redirect-uri.matcher';
import { Input, mutate, violated } from './input';

const PREFIXES = [
  'https://claude.ai/api/mcp/auth_callback/',
  'https://chatgpt.com/connector_platform_oauth_redirect/',
  'http://localhost/cb/',
];
const EXACT = ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:6274/oauth/callback'];

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const prefix = input.pick(PREFIXES);
  const rule: RedirectRule = input.bool() ? { kind: 'prefix', prefix } : { kind: 'exact', uris: EXACT };
  const base = rule.kind === 'prefix' ? `${prefix}${input.bool() ? 'conn-1' : ''}` : input.pick(EXACT);
  const candidate = input.bool() ? mutate(input, base) : input.rest();
  redirectConfigProblem(candidate, input.bool() ? 'exact' : 'prefix', input.bool());
  if (!matchesRedirectRule(rule, candidate)) return;
  if (rule.kind === 'exact') {
    if (!EXACT.includes(candidate)) violated('exact rule admitted another URI', { candidate });
    return;
  }
  const segment = candidate.slice(prefix.length);
  const url = new URL(candidate);
  const want = new URL(prefix);
  if (
    !candidate.startsWith(prefix) ||
    !/^[A-Za-z0-9._~-]+$/.test(segment) ||
    segment === '.' ||
    segment === '..' ||
    url.origin !== want.origin ||
    url.username !== '' ||
    url.password !== '' ||
    url.port !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.pathname !== `${want.pathname}${segment}`
  ) {
    violated('prefix rule admitted a URI outside the prefix', { prefix, candidate, href: url.href });
  }
}
