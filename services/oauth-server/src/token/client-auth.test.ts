import type { Request } from 'express';
import { StaticClients } from '../clients/static-clients';
import { authenticateClient } from './client-auth';
import { OAuthProtocolError } from './oauth-error';
import { verifiesS256 } from './pkce';

const clients = new StaticClients([
  {
    clientId: 'chat',
    name: 'Chat',
    redirect: { kind: 'exact', uris: ['https://chat.example.com/cb'] },
    authMethods: ['none', 'client_secret_post', 'client_secret_basic'],
  },
  {
    clientId: 'second',
    name: 'Second',
    redirect: { kind: 'prefix', prefix: 'https://s.example.com/' },
    authMethods: ['none'],
  },
]);

function request(authorization?: string): Request {
  return { headers: authorization === undefined ? {} : { authorization } } as Request;
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

function refusal(run: () => unknown): { code: string; status: number } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof OAuthProtocolError)) throw error;
    return { code: error.code, status: error.status };
  }
}

describe('client authentication (spec 5.3 rule 3)', () => {
  it('accepts the client id alone, an empty client_secret, or Basic with an empty password where allowed', () => {
    expect(authenticateClient(request(), { client_id: 'chat' }, clients).clientId).toBe('chat');
    expect(authenticateClient(request(), { client_id: 'chat', client_secret: '' }, clients).clientId).toBe('chat');
    expect(authenticateClient(request(basic('chat', '')), {}, clients).clientId).toBe('chat');
    expect(authenticateClient(request(), { client_id: 'second' }, clients).clientId).toBe('second');
  });

  it('refuses unknown clients, secrets, methods the client does not use and mixed methods', () => {
    expect(refusal(() => authenticateClient(request(), { client_id: 'evil' }, clients))).toEqual({
      code: 'invalid_client',
      status: 401,
    });
    expect(refusal(() => authenticateClient(request(), {}, clients))?.code).toBe('invalid_client');
    expect(refusal(() => authenticateClient(request(), { client_id: 'chat', client_secret: 'x' }, clients))?.code).toBe(
      'invalid_client',
    );
    expect(refusal(() => authenticateClient(request(basic('chat', 'x')), {}, clients))?.code).toBe('invalid_client');
    expect(refusal(() => authenticateClient(request(basic('second', '')), {}, clients))?.code).toBe('invalid_client');
    expect(
      refusal(() => authenticateClient(request(), { client_id: 'second', client_secret: '' }, clients))?.code,
    ).toBe('invalid_client');
    expect(refusal(() => authenticateClient(request(basic('chat', '')), { client_id: 'second' }, clients))?.code).toBe(
      'invalid_request',
    );
    expect(refusal(() => authenticateClient(request('Basic !!!'), {}, clients))?.code).toBe('invalid_client');
  });
});

describe('PKCE S256 (RFC 7636 appendix B)', () => {
  it('verifies the RFC example and refuses anything else', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(verifiesS256(verifier, challenge)).toBe(true);
    expect(verifiesS256(`${verifier.slice(0, -1)}l`, challenge)).toBe(false);
    expect(verifiesS256(challenge, challenge)).toBe(false);
    expect(verifiesS256('short', challenge)).toBe(false);
    expect(verifiesS256(undefined, challenge)).toBe(false);
  });
});
