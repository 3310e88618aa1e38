import type { ModuleReply } from '../../platform-modules';
import { jose } from '../jose.runtime';
import type { ApiUserStore } from './api-user.store';

/** The token path on the auth host (appleid.apple.com). */
export const TOKEN_PATH = '/auth/oauth2/token';
export const ASSERTION_AUDIENCE = 'https://appleid.apple.com';
export const SEARCH_ADS_SCOPE = 'searchadsorg';
/** The platform refuses client secrets that live longer than 180 days. */
const MAX_ASSERTION_LIFETIME_S = 180 * 86_400;
/** Clock skew allowed on exp and iat. */
const SKEW_S = 60;

type OAuthError = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope';

/** RFC 6749 section 5.2: all with HTTP 400 (ours: the platform answers invalid_client with 400 too). */
function oauthError(error: OAuthError, description?: string): ModuleReply {
  const payload = description === undefined ? { error } : { error, error_description: description };
  return { kind: 'json', status: 400, payload, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
}

/**
 * The parameters, from the form body and the query alike (the platform's own example sends them in the query
 * of a form POST). A parameter given twice is refused (RFC 6749 section 3.2).
 */
function readParameters(query: string, body: string): Map<string, string> | undefined {
  const merged = new Map<string, string>();
  for (const source of [new URLSearchParams(query), new URLSearchParams(body)]) {
    const seen = new Set<string>();
    for (const [name, value] of source) {
      if (seen.has(name)) return undefined;
      seen.add(name);
      merged.set(name, value);
    }
  }
  return merged;
}

/**
 * POST /auth/oauth2/token, grant_type=client_credentials with the client assertion as client_secret: an ES256
 * JWT signed by the API user's private key, header kid = key id, sub = client id, iss = team id, aud =
 * https://appleid.apple.com, exp at most 180 days after iat. Checks: request shape (invalid_request), grant
 * type, the client and its assertion (invalid_client), the assertion's lifetime (invalid_grant), then scope.
 */
export async function tokenEndpoint(
  store: ApiUserStore,
  now: () => number,
  request: { method: string; query: string; body: string; contentType: string | undefined },
): Promise<ModuleReply> {
  if (request.method !== 'POST') return oauthError('invalid_request', 'The token endpoint takes POST.');
  const contentType = (request.contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (request.body !== '' && contentType !== 'application/x-www-form-urlencoded') {
    return oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  const params = readParameters(request.query, request.body);
  if (!params) return oauthError('invalid_request', 'A parameter is given more than once.');
  const grantType = params.get('grant_type') ?? '';
  const clientId = params.get('client_id') ?? '';
  const clientSecret = params.get('client_secret') ?? '';
  const scope = params.get('scope') ?? '';
  if (grantType === '') return oauthError('invalid_request', 'grant_type is missing.');
  if (grantType !== 'client_credentials') return oauthError('unsupported_grant_type');
  if (clientId === '' || clientSecret === '')
    return oauthError('invalid_request', 'client_id or client_secret is missing.');

  const user = store.find(clientId);
  if (!user || user.revoked) return oauthError('invalid_client');
  let header;
  try {
    header = jose.decodeProtectedHeader(clientSecret);
  } catch {
    return oauthError('invalid_client');
  }
  if (header.alg !== 'ES256' || header.kid !== user.keyId) return oauthError('invalid_client');
  let payload;
  try {
    ({ payload } = await jose.jwtVerify(clientSecret, user.publicKey, {
      algorithms: ['ES256'],
      audience: ASSERTION_AUDIENCE,
      issuer: user.teamId,
      subject: user.clientId,
      requiredClaims: ['iat', 'exp'],
      currentDate: new Date(now()),
      clockTolerance: SKEW_S,
    }));
  } catch {
    // Bad signature, wrong aud/iss/sub, expired or malformed: the client is not authenticated.
    return oauthError('invalid_client');
  }
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (iat > now() / 1000 + SKEW_S) return oauthError('invalid_grant', 'The client secret is issued in the future.');
  if (exp - iat > MAX_ASSERTION_LIFETIME_S) {
    return oauthError('invalid_grant', 'The client secret must expire within 180 days of its issue.');
  }
  if (scope === '') return oauthError('invalid_request', 'scope is missing.');
  if (scope !== SEARCH_ADS_SCOPE) return oauthError('invalid_scope');

  const issued = store.issueToken(user);
  return {
    kind: 'json',
    status: 200,
    payload: {
      access_token: issued.token,
      token_type: 'Bearer',
      expires_in: issued.expiresInS,
      scope: SEARCH_ADS_SCOPE,
    },
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
  };
}
