import { hashApiKey } from '@gateway/store';
import { chooseResponseMode } from '../http/accept';
import { API_KEYS_ONLY, type AccessTokenVerifier } from './access-token.verifier';
import { readBearer } from './bearer-credentials';
import { metadataUrl, protectedResourceMetadata, wwwAuthenticate } from './protected-resource';

const KEY = `dg_live_${'A1b2C3d4E5'.repeat(4)}`;
const AUDIENCE = 'https://mcp.example.com/mcp';

describe('bearer credentials (spec 4.3, 5.3)', () => {
  it('recognises an API key by its format first and passes on only its SHA-256', async () => {
    const verifier: AccessTokenVerifier = { verify: jest.fn(() => Promise.resolve(null)) };
    expect(await readBearer(`Bearer ${KEY}`, verifier, AUDIENCE)).toEqual({
      kind: 'api_key',
      keyHash: hashApiKey(KEY),
    });
    expect(await readBearer(`bearer   ${KEY}  `, verifier, AUDIENCE)).toEqual({
      kind: 'api_key',
      keyHash: hashApiKey(KEY),
    });
    expect(verifier.verify).not.toHaveBeenCalled();
  });

  it('says missing without a header, and invalid for other schemes or malformed values', async () => {
    expect(await readBearer(undefined, API_KEYS_ONLY, AUDIENCE)).toEqual({ kind: 'missing' });
    expect(await readBearer('  ', API_KEYS_ONLY, AUDIENCE)).toEqual({ kind: 'missing' });
    for (const header of [`Basic ${KEY}`, 'Bearer', `Bearer ${KEY} extra`, `Bearer "${KEY}"`, `X-API-Key ${KEY}`]) {
      expect(await readBearer(header, API_KEYS_ONLY, AUDIENCE)).toMatchObject({ kind: 'invalid' });
    }
  });

  it('hands any other token to the OAuth verifier with this server as the audience', async () => {
    const verifier: AccessTokenVerifier = {
      verify: jest.fn((token: string, audience: string) =>
        Promise.resolve(
          token === 'good.jwt.token' && audience === AUDIENCE ? { keyHash: 'b'.repeat(64), clientId: 'c1' } : null,
        ),
      ),
    };
    expect(await readBearer('Bearer good.jwt.token', verifier, AUDIENCE)).toEqual({
      kind: 'access_token',
      keyHash: 'b'.repeat(64),
      clientId: 'c1',
    });
    expect(await readBearer('Bearer other.jwt.token', verifier, AUDIENCE)).toMatchObject({ kind: 'invalid' });
    expect(await readBearer('Bearer good.jwt.token', API_KEYS_ONLY, AUDIENCE)).toMatchObject({ kind: 'invalid' });
  });

  it('treats a verifier failure as an invalid token, never as an exception', async () => {
    const verifier: AccessTokenVerifier = { verify: () => Promise.reject(new Error('jwks down')) };
    expect(await readBearer('Bearer some.token', verifier, AUDIENCE)).toMatchObject({ kind: 'invalid' });
  });

  it('uses the anonymous test key only when no Authorization header is sent', async () => {
    expect(await readBearer(undefined, API_KEYS_ONLY, AUDIENCE, 'c'.repeat(64))).toEqual({
      kind: 'api_key',
      keyHash: 'c'.repeat(64),
    });
    expect(await readBearer('Bearer nope', API_KEYS_ONLY, AUDIENCE, 'c'.repeat(64))).toMatchObject({ kind: 'invalid' });
  });
});

describe('protected-resource metadata and WWW-Authenticate (RFC 9728, RFC 6750)', () => {
  const resource = { resource: AUDIENCE, authorizationServer: 'https://auth.example.com', scopes: ['data:read'] };

  it('names the resource, the authorization server and the scopes', () => {
    expect(protectedResourceMetadata(resource)).toEqual({
      resource: AUDIENCE,
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['data:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Data gateway MCP endpoint',
    });
    expect(metadataUrl(AUDIENCE)).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
  });

  it('carries no error without credentials and invalid_token with bad ones', () => {
    expect(wwwAuthenticate(resource)).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="data:read"',
    );
    expect(wwwAuthenticate(resource, { description: 'the "key" was revoked' })).toBe(
      'Bearer error="invalid_token", error_description="the key was revoked", ' +
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="data:read"',
    );
  });
});

describe('response mode from Accept', () => {
  it.each([
    ['application/json, text/event-stream', 'json'],
    ['text/event-stream, application/json', 'json'],
    ['application/json', 'json'],
    ['text/event-stream', 'sse'],
    ['application/json;q=0.5, text/event-stream', 'sse'],
    ['*/*', 'json'],
    ['application/*;q=0.2, text/event-stream;q=0.1', 'json'],
    [undefined, 'json'],
    ['text/html', undefined],
    ['application/json;q=0, text/event-stream;q=0', undefined],
  ])('answers %s with %s', (accept, mode) => {
    expect(chooseResponseMode(accept)).toBe(mode);
  });
});
