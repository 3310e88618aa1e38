import { createPublicKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { hashSeed } from '../../video-ads/data/prng';
import { findOrg, SEARCH_ADS_ORGS } from '../sandbox-orgs';

/**
 * An API user of the platform: the customer uploaded the public key of a key pair the gateway made; the platform
 * shows clientId, teamId and keyId. The gateway signs client assertions with the private key.
 */
export interface ApiUser {
  clientId: string;
  teamId: string;
  keyId: string;
  publicKey: KeyObject;
  orgIds: number[];
  /** The user id /api/v5/me answers. */
  userId: number;
  revoked: boolean;
}

interface AccessToken {
  clientId: string;
  expiresAt: number;
}

export type Registration = { ok: true; user: ApiUser } | { ok: false; message: string };

export type TokenLookup = { ok: true; user: ApiUser } | { ok: false };

/** API users and the access tokens minted for them, in memory. */
export class ApiUserStore {
  private readonly users = new Map<string, ApiUser>();
  private readonly tokens = new Map<string, AccessToken>();

  constructor(
    private readonly now: () => number,
    private readonly accessTokenMs: number,
  ) {}

  /** The platform accepts an EC public key on the P-256 curve, PEM encoded. */
  register(publicKeyPem: string, orgIds?: readonly number[]): Registration {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: publicKeyPem, format: 'pem' });
    } catch {
      return { ok: false, message: 'The public key is not a valid PEM public key.' };
    }
    if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      return { ok: false, message: 'The public key must be an EC key on the P-256 curve.' };
    }
    const chosen = orgIds === undefined ? SEARCH_ADS_ORGS.map((org) => org.orgId) : [...new Set(orgIds)];
    if (chosen.length === 0) return { ok: false, message: 'Choose at least one organization.' };
    const unknown = chosen.filter((orgId) => !findOrg(orgId));
    if (unknown.length > 0) return { ok: false, message: `Unknown organization: ${unknown.join(', ')}.` };
    const clientId = `SEARCHADS.${randomUUID()}`;
    const user: ApiUser = {
      clientId,
      teamId: `SEARCHADS.${randomUUID()}`,
      keyId: randomUUID(),
      publicKey,
      orgIds: chosen,
      userId: 10_000_000 + (hashSeed(clientId) % 90_000_000),
      revoked: false,
    };
    this.users.set(clientId, user);
    return { ok: true, user };
  }

  /** Any user, revoked or not (the token endpoint tells them apart). */
  find(clientId: string): ApiUser | undefined {
    return this.users.get(clientId);
  }

  /** The customer deletes the API user: no new tokens, and the ones out there stop working. */
  revoke(clientId: string): boolean {
    const user = this.users.get(clientId);
    if (!user || user.revoked) return false;
    user.revoked = true;
    return true;
  }

  issueToken(user: ApiUser): { token: string; expiresInS: number } {
    const now = this.now();
    for (const [token, entry] of this.tokens) if (entry.expiresAt <= now) this.tokens.delete(token);
    const token = randomBytes(48).toString('base64url');
    this.tokens.set(token, { clientId: user.clientId, expiresAt: now + this.accessTokenMs });
    return { token, expiresInS: Math.floor(this.accessTokenMs / 1000) };
  }

  lookupToken(token: string): TokenLookup {
    const entry = this.tokens.get(token);
    if (!entry || entry.expiresAt <= this.now()) return { ok: false };
    const user = this.users.get(entry.clientId);
    if (!user || user.revoked) return { ok: false };
    return { ok: true, user };
  }
}
