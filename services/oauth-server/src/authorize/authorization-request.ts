import type { StaticClient, StaticClients } from '../clients/static-clients';

/** A checked authorization request (OAuth 2.1 section 4.1.1, RFC 7636, RFC 8707). */
export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  state?: string;
  code_challenge: string;
  scopes: string[];
  resource: string;
}

export type ParsedAuthorizationRequest =
  | { kind: 'ok'; request: AuthorizationRequest; client: StaticClient }
  /** The client or redirect URI cannot be trusted: an error page, never a redirect (OAuth 2.1 section 4.1.2.1). */
  | { kind: 'fatal'; description: string }
  /** Anything else: the error goes back to the client's redirect URI. */
  | { kind: 'redirect'; redirectUri: string; state?: string; error: string; description: string };

export interface AuthorizationPolicy {
  clients: StaticClients;
  /** The one resource tokens are issued for: the MCP URL. */
  resource: string;
  scopes: readonly string[];
}

/** S256 of a 43-128 character verifier is 32 bytes: exactly 43 base64url characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE = 1024;

/** A parameter given once as a string; repeated parameters are refused (RFC 6749 section 3.1). */
function single(params: Record<string, unknown>, name: string): string | undefined | null {
  const value = params[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

export function parseAuthorizationRequest(
  params: Record<string, unknown>,
  policy: AuthorizationPolicy,
): ParsedAuthorizationRequest {
  const clientId = single(params, 'client_id');
  const client = policy.clients.find(clientId);
  // spec 5.3 rule 2: only the pre-registered clients; there is no registration to fall back on.
  if (!client) return { kind: 'fatal', description: 'The client_id is not one of the supported assistants.' };
  const redirectUri = single(params, 'redirect_uri');
  if (!policy.clients.acceptsRedirect(client, redirectUri)) {
    return { kind: 'fatal', description: `The redirect_uri is not registered for ${client.name}.` };
  }

  const stateValue = single(params, 'state');
  const state = typeof stateValue === 'string' && stateValue.length <= MAX_STATE ? stateValue : undefined;
  const fail = (error: string, description: string): ParsedAuthorizationRequest => ({
    kind: 'redirect',
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    error,
    description,
  });
  if (stateValue === null || (typeof stateValue === 'string' && stateValue.length > MAX_STATE)) {
    return fail('invalid_request', 'state must be given once, at most 1024 characters');
  }

  const responseType = single(params, 'response_type');
  if (responseType !== 'code') return fail('unsupported_response_type', 'response_type must be code');

  // OAuth 2.1 section 4.1.1: PKCE is required; only S256 is offered (plain would expose the verifier).
  const method = single(params, 'code_challenge_method');
  const challenge = single(params, 'code_challenge');
  if (challenge === undefined) return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (typeof challenge !== 'string' || !S256_CHALLENGE.test(challenge)) {
    return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier');
  }

  const scopeValue = single(params, 'scope');
  if (scopeValue === null) return fail('invalid_scope', 'scope must be given once');
  const scopes = scopeValue === undefined || scopeValue.trim() === '' ? [...policy.scopes] : scopeValue.split(/ +/);
  const unknown = scopes.filter((scope) => scope !== '' && !policy.scopes.includes(scope));
  if (unknown.length > 0) return fail('invalid_scope', `unknown scopes: ${unknown.join(' ')}`);

  // RFC 8707: the MCP URL is the only resource; MCP clients send it, older ones may not (then it is implied).
  const resource = single(params, 'resource');
  if (resource === null || (resource !== undefined && resource !== policy.resource)) {
    return fail('invalid_target', 'resource must be the MCP endpoint of this gateway');
  }

  return {
    kind: 'ok',
    client,
    request: {
      client_id: client.clientId,
      redirect_uri: redirectUri,
      ...(state !== undefined ? { state } : {}),
      code_challenge: challenge,
      scopes: [...new Set(scopes.filter(Boolean))],
      resource: policy.resource,
    },
  };
}

/** The request as query parameters again (the sign-in redirects back to GET /authorize with them). */
export function toAuthorizationQuery(request: AuthorizationRequest): URLSearchParams {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.client_id,
    redirect_uri: request.redirect_uri,
    code_challenge: request.code_challenge,
    code_challenge_method: 'S256',
    scope: request.scopes.join(' '),
    resource: request.resource,
  });
  if (request.state !== undefined) query.set('state', request.state);
  return query;
}

/** The redirect back to the client, with `iss` (RFC 9207) so it can tell which server answered. */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined>, issuer: string) {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
