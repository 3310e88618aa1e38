import type { Request } from 'express';
import type { ClientAuthMethod, StaticClient, StaticClients } from '../clients/static-clients';
import { OAuthProtocolError } from './oauth-error';

/**
 * Identifies the client of a /token or /revoke request (RFC 6749 section 2.3, OAuth 2.1 section 2.4). One method
 * per request; the method must be one the client uses; a secret, if sent at all, must be empty (spec 5.3 rule 3:
 * none was issued).
 */
export function authenticateClient(req: Request, body: Record<string, unknown>, clients: StaticClients): StaticClient {
  const header = req.headers.authorization;
  let method: ClientAuthMethod;
  let clientId: unknown;
  let secret: unknown;
  if (header !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon === -1) throw new OAuthProtocolError('invalid_client', 'malformed Basic credentials', 401, true);
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      throw new OAuthProtocolError('invalid_client', 'malformed Basic credentials', 401, true);
    }
    if (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== clientId)) {
      throw new OAuthProtocolError('invalid_request', 'use one client authentication method');
    }
    method = 'client_secret_basic';
  } else {
    clientId = body.client_id;
    secret = body.client_secret;
    method = secret === undefined ? 'none' : 'client_secret_post';
  }
  const client = clients.find(clientId);
  if (!client) throw new OAuthProtocolError('invalid_client', 'unknown client', 401, method === 'client_secret_basic');
  if (!client.authMethods.includes(method)) {
    throw new OAuthProtocolError(
      'invalid_client',
      `${client.clientId} authenticates with: ${client.authMethods.join(', ')}`,
      401,
    );
  }
  if (secret !== undefined && secret !== '') {
    throw new OAuthProtocolError('invalid_client', 'no client secret was issued: leave it empty', 401);
  }
  return client;
}
