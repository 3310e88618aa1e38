import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The app registered at the platform: the gateway's own one, from config. */
export interface ShopApp {
  app_key: string;
  app_secret: string;
  name: string;
  /** Allowed redirect_uri prefixes of the authorization page; empty allows any http(s) address. */
  redirectUris: readonly string[];
}

/** Scopes a seller grants on the authorization page (all of them; the control surface can mint fewer). */
export const SHOP_SCOPES: readonly string[] = [
  'seller.authorization.info',
  'seller.shop.info',
  'seller.order.info',
  'seller.product.basic',
  'seller.product.write',
  'seller.finance.info',
  'seller.fulfillment.basic',
  'seller.return_refund.basic',
  'seller.webhook',
  'data.shop_analytics.public.read',
];

/** One authorization of the app by one seller; every token pair it produced dies with it. */
export interface ShopGrant {
  app_key: string;
  open_id: string;
  scopes: readonly string[];
  created_at: number;
  revoked_at?: number;
}

export interface TokenPair {
  grant: ShopGrant;
  access_token: string;
  /** Milliseconds since the epoch. */
  access_expires_at: number;
  refresh_token: string;
  refresh_expires_at: number;
}

interface AccessEntry {
  grant: ShopGrant;
  expires_at: number;
}

interface RefreshEntry {
  grant: ShopGrant;
  expires_at: number;
  used_at?: number;
}

interface AuthCodeEntry {
  open_id: string;
  expires_at: number;
}

export interface TokenLifetimes {
  authCodeMs: number;
  accessMs: number;
  refreshMs: number;
}

export type AccessLookup = { ok: true; grant: ShopGrant } | { ok: false; reason: 'invalid' | 'expired' };
export type RefreshOutcome =
  { ok: true; pair: TokenPair } | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'revoked' };

/** Opaque and random: never derived from the secret or the seller. */
function opaque(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * In-memory platform state of the video-shop app: auth codes (single use), access tokens (expire) and refresh
 * tokens (expire, single use, rotate). Restarting the sandbox forgets every grant.
 */
export class ShopGrantStore {
  private readonly codes = new Map<string, AuthCodeEntry>();
  private readonly access = new Map<string, AccessEntry>();
  private readonly refreshTokens = new Map<string, RefreshEntry>();
  private readonly grants: ShopGrant[] = [];

  constructor(
    readonly app: ShopApp,
    private readonly now: () => number,
    private readonly ttl: TokenLifetimes,
  ) {}

  /** The app when both app_key and app_secret match; the secret is compared in constant time. */
  authenticate(appKey: string, appSecret: string): ShopApp | undefined {
    return appKey === this.app.app_key && sameSecret(appSecret, this.app.app_secret) ? this.app : undefined;
  }

  issueAuthCode(openId: string): string {
    this.dropExpiredCodes();
    const code = opaque(24);
    this.codes.set(code, { open_id: openId, expires_at: this.now() + this.ttl.authCodeMs });
    return code;
  }

  /** Single use: the first exchange consumes the code, whether it is still fresh or not. */
  exchangeAuthCode(code: string): TokenPair | undefined {
    const entry = this.codes.get(code);
    if (!entry) return undefined;
    this.codes.delete(code);
    if (entry.expires_at <= this.now()) return undefined;
    return this.mint(entry.open_id, SHOP_SCOPES);
  }

  /** A new grant with its first token pair (authorization page, or directly from the control surface). */
  mint(openId: string, scopes: readonly string[]): TokenPair {
    const grant: ShopGrant = {
      app_key: this.app.app_key,
      open_id: openId,
      scopes: [...new Set(scopes)],
      created_at: this.now(),
    };
    this.grants.push(grant);
    return this.issuePair(grant);
  }

  /**
   * Rotation: the refresh token is spent and a new pair comes back. Access tokens issued earlier stay valid
   * until their own expiry, so a client that refreshes early does not break calls in flight.
   */
  refresh(refreshToken: string): RefreshOutcome {
    const entry = this.refreshTokens.get(refreshToken);
    if (!entry) return { ok: false, reason: 'unknown' };
    if (entry.grant.revoked_at !== undefined) return { ok: false, reason: 'revoked' };
    if (entry.used_at !== undefined) return { ok: false, reason: 'used' };
    if (entry.expires_at <= this.now()) return { ok: false, reason: 'expired' };
    entry.used_at = this.now();
    return { ok: true, pair: this.issuePair(entry.grant) };
  }

  lookupAccess(accessToken: string): AccessLookup {
    const entry = this.access.get(accessToken);
    if (!entry || entry.grant.revoked_at !== undefined) return { ok: false, reason: 'invalid' };
    if (entry.expires_at <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, grant: entry.grant };
  }

  /** The seller cancels the grant that issued this token; answers how many grants died (0 or 1). */
  revokeByAccessToken(token: string): number {
    return this.revoke(this.access.get(token)?.grant);
  }

  revokeByRefreshToken(token: string): number {
    return this.revoke(this.refreshTokens.get(token)?.grant);
  }

  /** The seller cancels every authorization of the app. */
  revokeSeller(openId: string): number {
    return this.grants.filter((grant) => grant.open_id === openId).reduce((sum, grant) => sum + this.revoke(grant), 0);
  }

  private revoke(grant: ShopGrant | undefined): number {
    if (!grant || grant.revoked_at !== undefined) return 0;
    grant.revoked_at = this.now();
    return 1;
  }

  private issuePair(grant: ShopGrant): TokenPair {
    const now = this.now();
    const pair: TokenPair = {
      grant,
      access_token: opaque(32),
      access_expires_at: now + this.ttl.accessMs,
      refresh_token: opaque(32),
      refresh_expires_at: now + this.ttl.refreshMs,
    };
    this.access.set(pair.access_token, { grant, expires_at: pair.access_expires_at });
    this.refreshTokens.set(pair.refresh_token, { grant, expires_at: pair.refresh_expires_at });
    return pair;
  }

  private dropExpiredCodes(): void {
    const now = this.now();
    for (const [code, entry] of this.codes) if (entry.expires_at <= now) this.codes.delete(code);
  }
}
