import { createHash, randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { documentLockFor, type DocumentLock } from './document-lock';
import { isProviderId, type ProviderId } from './providers';
import { StoreError, requireString } from './store-error';

/**
 * A grant the customer started in the portal and has not come back from yet. Bound to the browser session, so a
 * platform callback is accepted only in the session that started it (the OAuth `state` check); the state is kept
 * as a hash and taken once.
 */
export interface PendingGrant {
  provider: ProviderId;
  /** Set when the grant renews an existing connection (spec 3: the account id is kept). */
  account_id: string | null;
}

export interface PortalSessionDocument {
  /** SHA-256 of the session id; the id itself lives only in the customer's HttpOnly cookie. */
  session_hash: string;
  customer_id: string;
  expires_at: Date;
  grant: (PendingGrant & { state_hash: string; expires_at: Date }) | null;
  created_at: Date;
  updated_at: Date;
}

export interface PortalSession {
  customer_id: string;
  expires_at: Date;
}

const SESSION_ID_BYTES = 32;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const grantSchema = new Schema(
  {
    provider: { type: String, required: true },
    account_id: { type: String, default: null },
    state_hash: { type: String, required: true },
    expires_at: { type: Date, required: true },
  },
  { _id: false, versionKey: false },
);

const portalSessionSchema = new Schema<PortalSessionDocument>(
  {
    session_hash: { type: String, required: true, match: /^[0-9a-f]{64}$/ },
    customer_id: { type: String, required: true },
    expires_at: { type: Date, required: true },
    grant: { type: grantSchema, default: null },
  },
  {
    collection: 'portal_sessions',
    versionKey: false,
    timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
  },
);
portalSessionSchema.index({ session_hash: 1 }, { unique: true });
portalSessionSchema.index({ customer_id: 1 });

export function portalSessionModel(connection: Connection): Model<PortalSessionDocument> {
  return (
    (connection.models.PortalSession as Model<PortalSessionDocument> | undefined) ??
    connection.model<PortalSessionDocument>('PortalSession', portalSessionSchema)
  );
}

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Sessions of the key portal. Ids and grant states are stored only as SHA-256 hashes. */
export class PortalSessionRepository {
  private readonly sessions: Model<PortalSessionDocument>;
  private readonly lock: DocumentLock;

  constructor(connection: Connection) {
    this.sessions = portalSessionModel(connection);
    this.lock = documentLockFor(connection);
  }

  /**
   * Creates the collection and its indexes (openStore does not know this collection). MongoDB removes expired
   * sessions by a TTL index; FerretDB 1.24 has none ("not implemented yet"), so there the index is a plain one
   * and the caller runs purgeExpired() now and then. Returns whether the TTL index exists. Reads always check
   * expires_at, since TTL deletion runs only once a minute.
   */
  async ensureIndexes(): Promise<{ ttl: boolean }> {
    await this.sessions.init();
    await this.sessions.createIndexes();
    try {
      await this.sessions.collection.createIndex({ expires_at: 1 }, { name: 'expires_at_ttl', expireAfterSeconds: 0 });
      return { ttl: true };
    } catch (error) {
      if (!/not implemented/i.test(String((error as Error).message))) throw error;
      await this.sessions.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
      return { ttl: false };
    }
  }

  /** Deletes expired sessions (where the database has no TTL index). */
  async purgeExpired(now = new Date()): Promise<number> {
    return (await this.sessions.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }

  /** A new session; the returned id exists only here and in the cookie. */
  async create(customerId: string, ttlMs: number, now = new Date()): Promise<{ sessionId: string; expiresAt: Date }> {
    requireString(customerId, 'customer_id');
    const sessionId = randomBytes(SESSION_ID_BYTES).toString('base64url');
    const expiresAt = new Date(now.getTime() + ttlMs);
    await this.sessions.create({
      session_hash: sha256(sessionId),
      customer_id: customerId,
      expires_at: expiresAt,
      grant: null,
    });
    return { sessionId, expiresAt };
  }

  /** The live session of an id, or null (unknown, malformed or expired). */
  async find(sessionId: unknown, now = new Date()): Promise<PortalSession | null> {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) return null;
    const doc = await this.sessions
      .findOne({ session_hash: sha256(sessionId), expires_at: { $gt: now } }, { customer_id: 1, expires_at: 1 })
      .lean();
    return doc === null ? null : { customer_id: doc.customer_id, expires_at: doc.expires_at };
  }

  async delete(sessionId: unknown): Promise<void> {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) return;
    await this.sessions.deleteOne({ session_hash: sha256(sessionId) });
  }

  async deleteByCustomer(customerId: string): Promise<number> {
    const result = await this.sessions.deleteMany({ customer_id: requireString(customerId, 'customer_id') });
    return result.deletedCount;
  }

  /** Remembers a grant started in this session (one at a time: a new one replaces the previous). */
  async startGrant(sessionId: string, state: string, grant: PendingGrant, ttlMs: number, now = new Date()) {
    requireString(state, 'state');
    if (!isProviderId(grant.provider)) throw new StoreError('invalid_input', 'provider is not a known provider id');
    const hash = sha256(requireString(sessionId, 'session_id'));
    const result = await this.lock.run(`portal_sessions:${hash}`, () =>
      this.sessions.updateOne(
        { session_hash: hash, expires_at: { $gt: now } },
        {
          $set: {
            grant: {
              provider: grant.provider,
              account_id: grant.account_id,
              state_hash: sha256(state),
              expires_at: new Date(now.getTime() + ttlMs),
            },
          },
        },
      ),
    );
    return result.matchedCount === 1;
  }

  /** The pending grant of this session when `state` matches, cleared so a state is accepted once; else null. */
  async takeGrant(sessionId: string, state: unknown, now = new Date()): Promise<PendingGrant | null> {
    if (typeof state !== 'string' || state.length === 0 || state.length > 512) return null;
    const hash = sha256(requireString(sessionId, 'session_id'));
    return this.lock.run(`portal_sessions:${hash}`, async () => {
      const doc = await this.sessions
        .findOne({ session_hash: hash, expires_at: { $gt: now }, 'grant.state_hash': sha256(state) })
        .lean();
      if (doc === null || doc.grant === null) return null;
      const taken = await this.sessions.updateOne(
        { session_hash: hash, 'grant.state_hash': doc.grant.state_hash },
        { $set: { grant: null } },
      );
      if (taken.modifiedCount !== 1 || doc.grant.expires_at.getTime() <= now.getTime()) return null;
      return { provider: doc.grant.provider, account_id: doc.grant.account_id };
    });
  }
}
