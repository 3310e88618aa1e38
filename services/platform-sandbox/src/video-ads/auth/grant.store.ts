import { randomBytes } from 'node:crypto';
import { findBusinessCenter, SANDBOX_BUSINESS_CENTERS } from '../sandbox-accounts';

/** An app registered at the platform: the gateway's own one, from config. */
export interface SandboxApp {
  app_id: string;
  secret: string;
  name: string;
  /** Allowed redirect_uri prefixes; empty allows any http(s) address. */
  redirectUris: readonly string[];
}

/** What one authorization gave one app: a long-term token for a set of advertisers. */
export interface Grant {
  access_token: string;
  app_id: string;
  advertiser_ids: readonly string[];
  /** Business centers the advertisers came from (BC reports need them). */
  bc_ids: readonly string[];
  scope: readonly number[];
  created_at: number;
  revoked_at?: number;
}

interface AuthCode {
  app_id: string;
  bc_ids: readonly string[];
  advertiser_ids: readonly string[];
  expires_at: number;
}

/** Permission ids the platform lists in `scope` (ad account management, ads, reporting, ...). */
export const GRANTED_SCOPE: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

export type ExchangeOutcome = { ok: true; grant: Grant } | { ok: false; reason: 'invalid_code' };

/**
 * In-memory platform state: auth codes (single use, one hour) and advertiser tokens (no expiry; they die only
 * when revoked, like the platform's). Restarting the sandbox forgets every grant.
 */
export class GrantStore {
  private readonly apps = new Map<string, SandboxApp>();
  private readonly codes = new Map<string, AuthCode>();
  private readonly tokens = new Map<string, Grant>();

  constructor(
    apps: readonly SandboxApp[],
    private readonly now: () => number,
    private readonly codeTtlMs: number,
  ) {
    for (const app of apps) this.apps.set(app.app_id, app);
  }

  findApp(appId: string): SandboxApp | undefined {
    return this.apps.get(appId);
  }

  /** The app when both app_id and secret match, else undefined. */
  authenticateApp(appId: string, secret: string): SandboxApp | undefined {
    const app = this.apps.get(appId);
    return app && app.secret === secret ? app : undefined;
  }

  /** Called when a person clicks Authorize for the business centers they picked. */
  issueAuthCode(appId: string, bcIds: readonly string[]): string {
    const code = randomBytes(20).toString('hex');
    this.dropExpiredCodes();
    this.codes.set(code, {
      app_id: appId,
      bc_ids: bcIds,
      advertiser_ids: advertisersOf(bcIds),
      expires_at: this.now() + this.codeTtlMs,
    });
    return code;
  }

  /** Single use: the code is consumed by the first successful exchange. A code of another app stays unused. */
  exchangeAuthCode(appId: string, code: string): ExchangeOutcome {
    const entry = this.codes.get(code);
    if (!entry || entry.app_id !== appId) return { ok: false, reason: 'invalid_code' };
    this.codes.delete(code);
    if (entry.expires_at <= this.now()) return { ok: false, reason: 'invalid_code' };
    return { ok: true, grant: this.mint(appId, entry.advertiser_ids, entry.bc_ids) };
  }

  /** Direct minting for seeding and tests (control surface); a new token every time. */
  mint(appId: string, advertiserIds: readonly string[], bcIds: readonly string[]): Grant {
    const grant: Grant = {
      access_token: randomBytes(20).toString('hex'),
      app_id: appId,
      advertiser_ids: [...new Set(advertiserIds)],
      bc_ids: [...new Set(bcIds)],
      scope: GRANTED_SCOPE,
      created_at: this.now(),
    };
    this.tokens.set(grant.access_token, grant);
    return grant;
  }

  /** The grant of a live token; revoked and unknown tokens both give undefined (the platform answers 40105). */
  findToken(accessToken: string): Grant | undefined {
    const grant = this.tokens.get(accessToken);
    return grant && grant.revoked_at === undefined ? grant : undefined;
  }

  revokeToken(accessToken: string): number {
    const grant = this.findToken(accessToken);
    if (!grant) return 0;
    grant.revoked_at = this.now();
    return 1;
  }

  /** The advertiser cancels the authorization: every live token that covers it dies. */
  revokeAdvertiser(advertiserId: string): number {
    let revoked = 0;
    for (const grant of this.tokens.values()) {
      if (grant.revoked_at === undefined && grant.advertiser_ids.includes(advertiserId)) {
        grant.revoked_at = this.now();
        revoked += 1;
      }
    }
    return revoked;
  }

  private dropExpiredCodes(): void {
    const now = this.now();
    for (const [code, entry] of this.codes) if (entry.expires_at <= now) this.codes.delete(code);
  }
}

export function advertisersOf(bcIds: readonly string[]): string[] {
  return bcIds.flatMap((bcId) => findBusinessCenter(bcId)?.advertisers.map((a) => a.advertiser_id) ?? []);
}

/** The business centers whose advertisers include any of the given ones. */
export function businessCentersOf(advertiserIds: readonly string[]): string[] {
  return SANDBOX_BUSINESS_CENTERS.filter((bc) =>
    bc.advertisers.some((advertiser) => advertiserIds.includes(advertiser.advertiser_id)),
  ).map((bc) => bc.bc_id);
}
