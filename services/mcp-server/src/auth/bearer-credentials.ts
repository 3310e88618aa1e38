import { hashApiKey, isWellFormedApiKey } from '@gateway/store';
import type { AccessTokenVerifier } from './access-token.verifier';

export type BearerCredentials =
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'api_key'; keyHash: string }
  | { kind: 'access_token'; keyHash: string; clientId?: string };

/** RFC 6750 section 2.1: "Bearer" 1*SP b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Reads Authorization: Bearer <token> (spec 4.3, 5.3). An API key is recognised by its format first (spec 2.1),
 * and only its SHA-256 goes further; any other token is handed to the OAuth verifier with this server's URL as
 * the audience. `anonymousKeyHash` (test instances only) stands in when no Authorization header is sent.
 */
export async function readBearer(
  header: string | undefined,
  verifier: AccessTokenVerifier,
  audience: string,
  anonymousKeyHash?: string,
): Promise<BearerCredentials> {
  if (header === undefined || header.trim() === '') {
    return anonymousKeyHash ? { kind: 'api_key', keyHash: anonymousKeyHash } : { kind: 'missing' };
  }
  const match = BEARER.exec(header);
  if (!match) return { kind: 'invalid', reason: 'expected Authorization: Bearer <token>' };
  const token = match[1]!;
  if (isWellFormedApiKey(token)) return { kind: 'api_key', keyHash: hashApiKey(token) };
  const verified = await verifier.verify(token, audience).catch(() => null);
  if (!verified) return { kind: 'invalid', reason: 'the token is not an API key and not a valid access token' };
  return {
    kind: 'access_token',
    keyHash: verified.keyHash,
    ...(verified.clientId ? { clientId: verified.clientId } : {}),
  };
}
