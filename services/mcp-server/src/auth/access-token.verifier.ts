/** What a verified OAuth access token stands for: the key the assistant's consent created (spec 5.3 rule 6). */
export interface VerifiedAccessToken {
  /** SHA-256 of that key: every decision is then asked of the key's actor, as for an API key. */
  keyHash: string;
  /** The OAuth client (assistant product) the token was issued to. */
  clientId?: string;
  scopes?: string[];
  /** Seconds since the epoch. */
  expiresAt?: number;
}

/**
 * Verifies an OAuth access token presented as a bearer token. `audience` is this server's MCP URL (PUBLIC_URL):
 * a token issued for another resource must be refused (RFC 8707, MCP authorization). Returns null for any token
 * it does not accept; never throws for a bad token. The OAuth issue provides the implementation; revocation
 * still takes effect at once because the key's actor decides every request.
 */
export interface AccessTokenVerifier {
  verify(token: string, audience: string): Promise<VerifiedAccessToken | null>;
}

/** Until the OAuth server exists: API keys only, every other bearer token is refused. */
export const API_KEYS_ONLY: AccessTokenVerifier = {
  verify: () => Promise.resolve(null),
};
