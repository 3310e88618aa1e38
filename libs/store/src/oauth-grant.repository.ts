import { createHash, randomBytes } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { documentLockFor, type DocumentLock } from './document-lock';
import { randomBase62 } from './ids';
import {
  oauthCodeModel,
  oauthTokenModel,
  type OAuthCodeDocument,
  type OAuthGrantFields,
  type OAuthTokenDocument,
  type OAuthTokenKind,
} from './oauth-grant.model';
import { StoreError, requireString } from './store-error';

/** Prefixes tell the kind of an opaque value at a glance; none can be taken for an API key (`dg_live_`). */
export const OAUTH_CODE_PREFIX = 'dg_ac_';
export const OAUTH_ACCESS_TOKEN_PREFIX = 'dg_at_';
export const OAUTH_REFRESH_TOKEN_PREFIX = 'dg_rt_';
/** 43 base62 characters: 256 bits of entropy. */
const RANDOM_LENGTH = 43;
const OPAQUE_PATTERN = /^dg_(ac|at|rt)_[0-9A-Za-z]{43}$/;

export type OAuthGrant = OAuthGrantFields;

export interface OAuthCodeGrant extends OAuthGrant {
  redirect_uri: string;
  code_challenge: string;
}

export interface OAuthTokenRecord extends OAuthGrant {
  kind: OAuthTokenKind;
  expires_at: Date;
  revoked_at: Date | null;
  rotated_at: Date | null;
}

/** The secrets exist only in this value, on their way to the client (spec 2.1: only hashes are stored). */
export interface IssuedOAuthTokens {
  access_token: string;
  refresh_token: string;
  access_expires_at: Date;
}

export type TakenCode =
  | { status: 'ok'; grant: OAuthCodeGrant }
  /** Exchanged before: the tokens issued for it have just been revoked. */
  | { status: 'reused' }
  | { status: 'invalid' };

export type RotatedRefresh =
  | { status: 'ok'; grant: OAuthGrant }
  /** Rotated before: the whole family has just been revoked. */
  | { status: 'reused' }
  | { status: 'invalid' };

export function hashOAuthSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new family id for a fresh authorization (not a secret: it only groups codes and tokens). */
export function newOAuthFamilyId(): string {
  return `fam_${randomBytes(12).toString('hex')}`;
}

/**
 * Authorization codes, access and refresh tokens of oauth-server, stored only as SHA-256 hashes under `_id`, so
 * the hot lookup (mcp-server verifying an access token) is an `_id` lookup (natural-ids.ts). Writes are serialised
 * per document in-process (document-lock.ts); oauth-server is their only writer.
 */
export class OAuthGrantRepository {
  private readonly codes: Model<OAuthCodeDocument>;
  private readonly tokens: Model<OAuthTokenDocument>;
  private readonly lock: DocumentLock;

  constructor(connection: Connection) {
    this.codes = oauthCodeModel(connection);
    this.tokens = oauthTokenModel(connection);
    this.lock = documentLockFor(connection);
  }

  /**
   * Creates both collections and their indexes. MongoDB deletes expired codes and tokens through TTL indexes;
   * FerretDB 1.24 has none, so there the caller runs purgeExpired() now and then. Reads check expiry either way.
   */
  async ensureIndexes(): Promise<{ ttl: boolean }> {
    let ttl = true;
    for (const model of [this.codes, this.tokens]) {
      await model.init();
      await model.createIndexes();
      try {
        await model.collection.createIndex({ expires_at: 1 }, { name: 'expires_at_ttl', expireAfterSeconds: 0 });
      } catch (error) {
        if (!/not implemented/i.test(String((error as Error).message))) throw error;
        await model.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
        ttl = false;
      }
    }
    return { ttl };
  }

  async purgeExpired(now = new Date()): Promise<number> {
    const codes = await this.codes.deleteMany({ expires_at: { $lte: now } });
    const tokens = await this.tokens.deleteMany({ expires_at: { $lte: now } });
    return codes.deletedCount + tokens.deletedCount;
  }

  /** A new single-use authorization code for this grant; the code exists only in the returned value. */
  async createCode(grant: OAuthCodeGrant, ttlMs: number, now = new Date()): Promise<string> {
    const code = OAUTH_CODE_PREFIX + randomBase62(RANDOM_LENGTH);
    await this.codes.create({
      _id: hashOAuthSecret(code),
      ...pickGrant(grant),
      redirect_uri: requireString(grant.redirect_uri, 'redirect_uri'),
      code_challenge: requireString(grant.code_challenge, 'code_challenge'),
      expires_at: new Date(now.getTime() + ttlMs),
      used_at: null,
    });
    return code;
  }

  /**
   * Takes a code once. A code presented again revokes the tokens issued for it (RFC 6749 section 4.1.2); an
   * expired or unknown one is just invalid.
   */
  async takeCode(code: unknown, now = new Date()): Promise<TakenCode> {
    if (!isOpaque(code, OAUTH_CODE_PREFIX)) return { status: 'invalid' };
    const hash = hashOAuthSecret(code);
    return this.lock.run(`oauth_codes:${hash}`, async () => {
      const doc = await this.codes.findOne({ _id: hash }).lean();
      if (doc === null) return { status: 'invalid' as const };
      if (doc.used_at !== null) {
        await this.revokeFamily(doc.family_id, now);
        return { status: 'reused' as const };
      }
      // The second condition makes the claim atomic across oauth-server replicas on MongoDB; on FerretDB (one
      // process in development) it costs a collection scan, which a code exchange can afford.
      const taken = await this.codes.updateOne({ _id: hash, used_at: null }, { $set: { used_at: now } });
      if (taken.modifiedCount !== 1) return { status: 'reused' as const };
      if (doc.expires_at.getTime() <= now.getTime()) return { status: 'invalid' as const };
      return {
        status: 'ok' as const,
        grant: { ...pickGrant(doc), redirect_uri: doc.redirect_uri, code_challenge: doc.code_challenge },
      };
    });
  }

  /** An access and a refresh token of the grant's family. */
  async issueTokens(
    grant: OAuthGrant,
    ttl: { accessMs: number; refreshMs: number },
    now = new Date(),
  ): Promise<IssuedOAuthTokens> {
    const access = OAUTH_ACCESS_TOKEN_PREFIX + randomBase62(RANDOM_LENGTH);
    const refresh = OAUTH_REFRESH_TOKEN_PREFIX + randomBase62(RANDOM_LENGTH);
    const fields = pickGrant(grant);
    const accessExpiresAt = new Date(now.getTime() + ttl.accessMs);
    await this.tokens.create([
      {
        _id: hashOAuthSecret(access),
        ...fields,
        kind: 'access',
        expires_at: accessExpiresAt,
        revoked_at: null,
        rotated_at: null,
      },
      {
        _id: hashOAuthSecret(refresh),
        ...fields,
        kind: 'refresh',
        expires_at: new Date(now.getTime() + ttl.refreshMs),
        revoked_at: null,
        rotated_at: null,
      },
    ]);
    return { access_token: access, refresh_token: refresh, access_expires_at: accessExpiresAt };
  }

  /** A token by its value (one `_id` lookup), whatever its state; null when unknown or malformed. */
  async findToken(token: unknown): Promise<OAuthTokenRecord | null> {
    if (!isOpaque(token, OAUTH_ACCESS_TOKEN_PREFIX) && !isOpaque(token, OAUTH_REFRESH_TOKEN_PREFIX)) return null;
    const doc = await this.tokens.findOne({ _id: hashOAuthSecret(token) }).lean();
    return doc === null ? null : toTokenRecord(doc);
  }

  /**
   * Exchanges a refresh token once (rotation, OAuth 2.1 section 4.3.1). Presenting a rotated token again means
   * it was copied: the whole family is revoked, the legitimate holder's new tokens included (RFC 9700 4.14.2).
   */
  async rotateRefreshToken(token: unknown, now = new Date()): Promise<RotatedRefresh> {
    if (!isOpaque(token, OAUTH_REFRESH_TOKEN_PREFIX)) return { status: 'invalid' };
    const hash = hashOAuthSecret(token);
    return this.lock.run(`oauth_tokens:${hash}`, async () => {
      const doc = await this.tokens.findOne({ _id: hash }).lean();
      if (doc === null || doc.kind !== 'refresh') return { status: 'invalid' as const };
      if (doc.rotated_at !== null) {
        await this.revokeFamily(doc.family_id, now);
        return { status: 'reused' as const };
      }
      if (doc.revoked_at !== null || doc.expires_at.getTime() <= now.getTime()) return { status: 'invalid' as const };
      const taken = await this.tokens.updateOne({ _id: hash, rotated_at: null }, { $set: { rotated_at: now } });
      if (taken.modifiedCount !== 1) {
        await this.revokeFamily(doc.family_id, now);
        return { status: 'reused' as const };
      }
      return { status: 'ok' as const, grant: pickGrant(doc) };
    });
  }

  /** Revokes every code and token of a family (RFC 7009 revocation, reuse detection). Idempotent. */
  async revokeFamily(familyId: string, now = new Date()): Promise<number> {
    requireString(familyId, 'family_id');
    const result = await this.tokens.updateMany(
      { family_id: familyId, revoked_at: null },
      { $set: { revoked_at: now } },
    );
    return result.modifiedCount;
  }
}

function isOpaque(value: unknown, prefix: string): value is string {
  return typeof value === 'string' && value.startsWith(prefix) && OPAQUE_PATTERN.test(value);
}

function pickGrant(grant: OAuthGrant): OAuthGrant {
  if (!/^[0-9a-f]{64}$/.test(grant.key_hash)) throw new StoreError('invalid_input', 'key_hash must be a SHA-256');
  return {
    client_id: requireString(grant.client_id, 'client_id'),
    customer_id: requireString(grant.customer_id, 'customer_id'),
    key_hash: grant.key_hash,
    resource: requireString(grant.resource, 'resource'),
    scopes: [...grant.scopes],
    family_id: requireString(grant.family_id, 'family_id'),
  };
}

function toTokenRecord(doc: OAuthTokenDocument): OAuthTokenRecord {
  return {
    ...pickGrant(doc),
    kind: doc.kind,
    expires_at: doc.expires_at,
    revoked_at: doc.revoked_at ?? null,
    rotated_at: doc.rotated_at ?? null,
  };
}
