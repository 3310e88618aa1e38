import { StaticClients } from '../clients/static-clients';
import { clientRedirect, parseAuthorizationRequest, toAuthorizationQuery } from './authorization-request';

const RESOURCE = 'https://mcp.example.com/mcp';
const CALLBACK = 'https://chat.example.com/cb';
const clients = new StaticClients([
  { clientId: 'chat', name: 'Chat', redirect: { kind: 'exact', uris: [CALLBACK] }, authMethods: ['none'] },
]);
const policy = { clients, resource: RESOURCE, scopes: ['data:read'] };
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function params(overrides: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = {
    response_type: 'code',
    client_id: 'chat',
    redirect_uri: CALLBACK,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'xyz',
    resource: RESOURCE,
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

describe('authorization request (OAuth 2.1 4.1.1, RFC 7636, RFC 8707)', () => {
  it('accepts a complete request, defaulting scope and binding the resource', () => {
    const parsed = parseAuthorizationRequest(params(), policy);
    expect(parsed).toMatchObject({
      kind: 'ok',
      request: { client_id: 'chat', redirect_uri: CALLBACK, state: 'xyz', scopes: ['data:read'], resource: RESOURCE },
    });
    const implied = parseAuthorizationRequest(params({ resource: undefined }), policy);
    expect(implied).toMatchObject({ kind: 'ok', request: { resource: RESOURCE } });
  });

  it('round-trips through the query it rebuilds', () => {
    const parsed = parseAuthorizationRequest(params(), policy);
    if (parsed.kind !== 'ok') throw new Error('expected ok');
    expect(parseAuthorizationRequest(Object.fromEntries(toAuthorizationQuery(parsed.request)), policy)).toEqual(parsed);
  });

  it('never redirects for an unknown client or redirect URI, nor for repeated ones', () => {
    for (const overrides of [
      { client_id: 'evil' },
      { client_id: undefined },
      { client_id: ['chat', 'chat'] },
      { redirect_uri: 'https://evil.example/cb' },
      { redirect_uri: undefined },
      { redirect_uri: [CALLBACK, 'https://evil.example/cb'] },
    ]) {
      expect(parseAuthorizationRequest(params(overrides), policy).kind).toBe('fatal');
    }
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge: 'too-short' }, 'invalid_request'],
    [{ scope: 'data:read data:write' }, 'invalid_scope'],
    [{ resource: 'https://mcp.example.com/mcp/' }, 'invalid_target'],
    [{ resource: [RESOURCE, RESOURCE] }, 'invalid_target'],
    [{ state: 'x'.repeat(1025) }, 'invalid_request'],
  ])('sends %j back to the client as %s', (overrides, error) => {
    const parsed = parseAuthorizationRequest(params(overrides), policy);
    expect(parsed).toMatchObject({ kind: 'redirect', redirectUri: CALLBACK, error });
  });

  it('adds the issuer to the redirect (RFC 9207) and keeps the state', () => {
    const url = new URL(clientRedirect(CALLBACK, { code: 'c', state: 'a b&c' }, 'https://auth.example.com'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      code: 'c',
      state: 'a b&c',
      iss: 'https://auth.example.com',
    });
  });
});
