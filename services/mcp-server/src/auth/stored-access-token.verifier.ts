import { hashOAuthSecret, OAUTH_ACCESS_TOKEN_PREFIX, type OAuthGrantRepository } from '@gateway/store';
import type { AccessTokenVerifier, VerifiedAccessToken } from './access-token.verifier';

interface CacheEntry {
  verified: VerifiedAccessToken;
  audience: string;
  /** ms since the epoch: the earlier of the cache life and the token's expiry. */
  until: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Verifies oauth-server's opaque access tokens: one `_id` lookup of the token's SHA-256 in oauth_tokens, then
 * kind, audience (this server's MCP URL, RFC 8707), expiry and revocation. Accepted tokens are remembered for
 * `cacheMs` at most (never past their expiry), so a token revoked at /revoke stops working within that time;
 * a key revoked in the portal stops at once, since the key's actor decides every request.
 */
export class StoredAccessTokenVerifier implements AccessTokenVerifier {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly grants: Pick<OAuthGrantRepository, 'findToken'>,
    private readonly options: { cacheMs: number; now?: () => number },
  ) {}

  async verify(token: string, audience: string): Promise<VerifiedAccessToken | null> {
    if (!token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX)) return null;
    const now = this.options.now?.() ?? Date.now();
    const hash = hashOAuthSecret(token);
    const cached = this.cache.get(hash);
    if (cached !== undefined) {
      if (cached.until > now) return cached.audience === audience ? cached.verified : null;
      this.cache.delete(hash);
    }
    const record = await this.grants.findToken(token);
    if (
      record === null ||
      record.kind !== 'access' ||
      record.revoked_at !== null ||
      record.expires_at.getTime() <= now ||
      record.resource !== audience
    ) {
      return null;
    }
    const verified: VerifiedAccessToken = {
      keyHash: record.key_hash,
      clientId: record.client_id,
      scopes: record.scopes,
      expiresAt: Math.floor(record.expires_at.getTime() / 1000),
    };
    if (this.options.cacheMs > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, {
        verified,
        audience,
        until: Math.min(now + this.options.cacheMs, record.expires_at.getTime()),
      });
    }
    return verified;
  }
}
