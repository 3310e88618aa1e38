import { matchesRedirectRule, redirectConfigProblem, type RedirectRule } from './redirect-uri.matcher';

const PREFIX: RedirectRule = { kind: 'prefix', prefix: 'https://second.example.com/connector/oauth/' };
const EXACT: RedirectRule = { kind: 'exact', uris: ['https://chat.example.com/api/mcp/auth_callback'] };

describe('redirect URI matcher (spec 5.3 rule 4)', () => {
  it('accepts one safe segment under the prefix', () => {
    for (const uri of [
      'https://second.example.com/connector/oauth/abc123',
      'https://second.example.com/connector/oauth/c_0a-9.Z~x',
    ]) {
      expect(matchesRedirectRule(PREFIX, uri)).toBe(true);
    }
  });

  it.each([
    ['the prefix alone', 'https://second.example.com/connector/oauth/'],
    ['another scheme', 'http://second.example.com/connector/oauth/abc'],
    ['an upper-case scheme or host', 'HTTPS://second.example.com/connector/oauth/abc'],
    ['a look-alike host (suffix)', 'https://second.example.com.evil.test/connector/oauth/abc'],
    ['a look-alike host (prefix)', 'https://evil-second.example.com/connector/oauth/abc'],
    ['userinfo', 'https://second.example.com@evil.test/connector/oauth/abc'],
    ['userinfo before the right host', 'https://evil.test@second.example.com/connector/oauth/abc'],
    ['an explicit port', 'https://second.example.com:443/connector/oauth/abc'],
    ['another port', 'https://second.example.com:8443/connector/oauth/abc'],
    ['a second segment', 'https://second.example.com/connector/oauth/abc/def'],
    ['a trailing slash', 'https://second.example.com/connector/oauth/abc/'],
    ['a dot-dot segment', 'https://second.example.com/connector/oauth/..'],
    ['a dot segment', 'https://second.example.com/connector/oauth/.'],
    ['dot segments climbing out', 'https://second.example.com/connector/oauth/../../evil'],
    ['an encoded slash', 'https://second.example.com/connector/oauth/a%2Fb'],
    ['an encoded dot segment', 'https://second.example.com/connector/oauth/%2e%2e'],
    ['an encoded backslash', 'https://second.example.com/connector/oauth/a%5Cb'],
    ['a backslash', 'https://second.example.com/connector/oauth/a\\b'],
    ['a query', 'https://second.example.com/connector/oauth/abc?next=https://evil.test'],
    ['an empty query', 'https://second.example.com/connector/oauth/abc?'],
    ['a fragment', 'https://second.example.com/connector/oauth/abc#x'],
    ['whitespace', 'https://second.example.com/connector/oauth/a b'],
    ['a tab the parser would strip', 'https://second.example.com/connector/oauth/a\tb'],
    ['a path outside the prefix', 'https://second.example.com/connector/oauthx'],
    ['a very long segment', `https://second.example.com/connector/oauth/${'a'.repeat(300)}`],
    ['an empty value', ''],
  ])('refuses %s', (_why, uri) => {
    expect(matchesRedirectRule(PREFIX, uri)).toBe(false);
  });

  it('refuses non-strings', () => {
    expect(matchesRedirectRule(PREFIX, undefined)).toBe(false);
    expect(matchesRedirectRule(PREFIX, ['https://second.example.com/connector/oauth/abc'])).toBe(false);
  });

  it('matches exact URIs byte for byte only', () => {
    expect(matchesRedirectRule(EXACT, 'https://chat.example.com/api/mcp/auth_callback')).toBe(true);
    for (const uri of [
      'https://chat.example.com/api/mcp/auth_callback/',
      'https://chat.example.com/api/mcp/auth_callback?x=1',
      'https://chat.example.com/api/mcp/auth_callback#x',
      'https://CHAT.example.com/api/mcp/auth_callback',
      'https://chat.example.com:443/api/mcp/auth_callback',
      'https://chat.example.com/api/mcp/auth_callback/../auth_callback',
      'https://chat.example.com/api/mcp/auth%5Fcallback',
      'https://chat.example.com/api/mcp/auth_callbackx',
    ]) {
      expect(matchesRedirectRule(EXACT, uri)).toBe(false);
    }
  });
});

describe('redirect URI configuration', () => {
  it('accepts https URIs and prefixes in normal form', () => {
    expect(redirectConfigProblem('https://chat.example.com/api/mcp/auth_callback', 'exact', false)).toBeNull();
    expect(redirectConfigProblem('https://second.example.com/connector/oauth/', 'prefix', false)).toBeNull();
  });

  it('allows loopback http only when asked', () => {
    expect(redirectConfigProblem('http://127.0.0.1:3000/callback', 'exact', true)).toBeNull();
    expect(redirectConfigProblem('http://127.0.0.1:3000/callback', 'exact', false)).toBe('must be https');
    expect(redirectConfigProblem('http://evil.test/callback', 'exact', true)).toBe('must be https');
  });

  it('refuses prefixes a match could escape', () => {
    expect(redirectConfigProblem('https://second.example.com/connector/oauth', 'prefix', false)).toBe(
      'must end with "/"',
    );
    expect(redirectConfigProblem('https://second.example.com:8443/oauth/', 'prefix', false)).toBe(
      'must not carry a port',
    );
    expect(redirectConfigProblem('https://u@second.example.com/oauth/', 'prefix', false)).toBe(
      'must not carry userinfo',
    );
    expect(redirectConfigProblem('https://second.example.com/oauth/?a=1', 'prefix', false)).toBe(
      'must not carry a query or fragment',
    );
    expect(redirectConfigProblem('https://Second.example.com/oauth/', 'prefix', false)).toBe(
      'must be written in normal form',
    );
  });
});
