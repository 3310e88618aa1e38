import { randomBytes } from 'node:crypto';

export type AppType = 'seller' | 'ads' | 'affiliate';

/** One partner app registered at the platform; the gateway has three, one per app type. */
export interface MarketApp {
  partner_id: number;
  partner_key: string;
  type: AppType;
  name: string;
}

/** A shop's authorization of one app. Tokens are per (app, shop); a shop granted to three apps has three. */
export interface MarketGrant {
  partner_id: number;
  shop_id: number;
  /** Milliseconds since the epoch. */
  created_at: number;
  revoked_at?: number;
}

export interface TokenPair {
  grant: MarketGrant;
  access_token: string;
  access_expires_at: number;
  refresh_token: string;
  refresh_expires_at: number;
}

export interface TokenLifetimes {
  authCodeMs: number;
  accessMs: number;
  refreshMs: number;
}

interface TokenEntry {
  grant: MarketGrant;
  expires_at: number;
  used_at?: number;
}

interface CodeEntry {
  partner_id: number;
  shop_id: number;
  expires_at: number;
}

export type AccessLookup = { ok: true; grant: MarketGrant } | { ok: false; reason: 'invalid' | 'expired' };

/** 32 lowercase hex characters, like the platform's tokens and codes; random, never derived from anything. */
function opaque(): string {
  return randomBytes(16).toString('hex');
}

/**
 * In-memory platform state of the three apps: auth codes (10 minutes, single use), access tokens (expire),
 * refresh tokens (expire, single use, rotate). Restarting the sandbox forgets every grant.
 */
export class MarketGrantStore {
  private readonly codes = new Map<string, CodeEntry>();
  private readonly access = new Map<string, TokenEntry>();
  private readonly refreshTokens = new Map<string, TokenEntry>();
  private readonly grants: MarketGrant[] = [];

  constructor(
    readonly apps: readonly MarketApp[],
    private readonly now: () => number,
    private readonly ttl: TokenLifetimes,
  ) {}

  findApp(partnerId: number): MarketApp | undefined {
    return this.apps.find((app) => app.partner_id === partnerId);
  }

  issueAuthCode(partnerId: number, shopId: number): string {
    const now = this.now();
    for (const [code, entry] of this.codes) if (entry.expires_at <= now) this.codes.delete(code);
    const code = opaque();
    this.codes.set(code, { partner_id: partnerId, shop_id: shopId, expires_at: now + this.ttl.authCodeMs });
    return code;
  }

  /** Single use: the first attempt consumes the code, even when partner or shop do not match. */
  exchangeAuthCode(code: string, partnerId: number, shopId: number): TokenPair | undefined {
    const entry = this.codes.get(code);
    if (!entry) return undefined;
    this.codes.delete(code);
    if (entry.expires_at <= this.now() || entry.partner_id !== partnerId || entry.shop_id !== shopId) return undefined;
    return this.mint(partnerId, shopId);
  }

  mint(partnerId: number, shopId: number): TokenPair {
    const grant: MarketGrant = { partner_id: partnerId, shop_id: shopId, created_at: this.now() };
    this.grants.push(grant);
    return this.issuePair(grant);
  }

  /**
   * Rotation: the refresh token dies at once and a new pair comes back. Earlier access tokens stay valid
   * until their own expiry. The token must belong to the calling partner and the named shop.
   */
  refresh(refreshToken: string, partnerId: number, shopId: number): TokenPair | undefined {
    const entry = this.refreshTokens.get(refreshToken);
    if (!entry || entry.grant.partner_id !== partnerId || entry.grant.shop_id !== shopId) return undefined;
    if (entry.grant.revoked_at !== undefined || entry.used_at !== undefined) return undefined;
    if (entry.expires_at <= this.now()) return undefined;
    entry.used_at = this.now();
    return this.issuePair(entry.grant);
  }

  lookupAccess(accessToken: string): AccessLookup {
    const entry = this.access.get(accessToken);
    if (!entry || entry.grant.revoked_at !== undefined) return { ok: false, reason: 'invalid' };
    if (entry.expires_at <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, grant: entry.grant };
  }

  /** Live grants of an app (public/get_shops_by_partner). */
  liveGrants(partnerId: number): MarketGrant[] {
    return this.grants.filter((grant) => grant.partner_id === partnerId && grant.revoked_at === undefined);
  }

  revokeByAccessToken(token: string): number {
    return this.revoke(this.access.get(token)?.grant);
  }

  revokeByRefreshToken(token: string): number {
    return this.revoke(this.refreshTokens.get(token)?.grant);
  }

  /** The seller cancels the shop's authorization of one app: every grant of that (app, shop) dies. */
  revokeShop(partnerId: number, shopId: number): number {
    return this.grants
      .filter((grant) => grant.partner_id === partnerId && grant.shop_id === shopId)
      .reduce((sum, grant) => sum + this.revoke(grant), 0);
  }

  private revoke(grant: MarketGrant | undefined): number {
    if (!grant || grant.revoked_at !== undefined) return 0;
    grant.revoked_at = this.now();
    return 1;
  }

  private issuePair(grant: MarketGrant): TokenPair {
    const now = this.now();
    const pair: TokenPair = {
      grant,
      access_token: opaque(),
      access_expires_at: now + this.ttl.accessMs,
      refresh_token: opaque(),
      refresh_expires_at: now + this.ttl.refreshMs,
    };
    this.access.set(pair.access_token, { grant, expires_at: pair.access_expires_at });
    this.refreshTokens.set(pair.refresh_token, { grant, expires_at: pair.refresh_expires_at });
    return pair;
  }
}
