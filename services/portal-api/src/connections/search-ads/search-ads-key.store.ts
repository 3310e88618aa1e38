import type { CredentialCipher, SealedCredentials, Store } from '@gateway/store';
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Key pairs the portal made for a search-ads connection that is not finished yet (docs/portal.md, search-ads). The
 * customer takes the public key to the platform, registers an API user, and comes back with its ids; until then the
 * private key waits here, sealed with the credential cipher like every credential, bound to the customer, for a
 * limited time. The pending id is stored only as SHA-256 and is the ciphertext's AAD, so a sealed key cannot be
 * moved to another pending entry or customer.
 */
export interface PendingSearchAdsKey {
  customerId: string;
  /** The connection a re-grant renews (the account id stays the same), or null for a new connection. */
  accountId: string | null;
  expiresAt: Date;
  secrets: PendingKeySecrets;
}

/** Everything sealed: the private key and, once verified, the API user's ids, its token and its organizations. */
const PendingKeySecretsSchema = z.strictObject({
  private_key: z.string().min(1),
  api_user: z
    .strictObject({
      client_id: z.string(),
      team_id: z.string(),
      key_id: z.string(),
      access_token: z.string(),
      access_token_expires_at: z.string(),
      orgs: z.array(
        z.strictObject({ org_id: z.number(), org_name: z.string(), currency: z.string(), time_zone: z.string() }),
      ),
    })
    .optional(),
});
export type PendingKeySecrets = z.infer<typeof PendingKeySecretsSchema>;

interface PendingKeyDocument {
  _id: string;
  customer_id: string;
  account_id: string | null;
  sealed: SealedCredentials;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** Pending keys one customer may hold at once; starting another drops the oldest. */
const MAX_PENDING_PER_CUSTOMER = 5;
const PENDING_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const COLLECTION = 'portal_search_ads_keys';

/** The store's MongoDB connection (mongoose is @gateway/store's dependency; this uses only its driver collection). */
type StoreConnection = Store['connection'];
const pendingKeysOf = (connection: StoreConnection) => connection.collection<PendingKeyDocument>(COLLECTION);
type PendingKeyCollection = ReturnType<typeof pendingKeysOf>;

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function aadOf(customerId: string, pendingId: string): string {
  return `portal_search_ads_keys:${customerId}:${pendingId}`;
}

export class SearchAdsKeyStore {
  private readonly keys: PendingKeyCollection;

  constructor(
    connection: StoreConnection,
    private readonly cipher: CredentialCipher,
  ) {
    this.keys = pendingKeysOf(connection);
  }

  /** As PortalSessionRepository.ensureIndexes: a TTL index where the database has one (FerretDB has not). */
  async ensureIndexes(): Promise<{ ttl: boolean }> {
    await this.keys.createIndex({ customer_id: 1, created_at: 1 }, { name: 'customer_id_created_at' });
    try {
      await this.keys.createIndex({ expires_at: 1 }, { name: 'expires_at_ttl', expireAfterSeconds: 0 });
      return { ttl: true };
    } catch (error) {
      if (!/not implemented/i.test(String((error as Error).message))) throw error;
      await this.keys.createIndex({ expires_at: 1 }, { name: 'expires_at' });
      return { ttl: false };
    }
  }

  async purgeExpired(now = new Date()): Promise<number> {
    return (await this.keys.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }

  /** Stores a new pending key; the returned id exists only here and in the customer's answer. */
  async create(
    customerId: string,
    accountId: string | null,
    privateKeyPem: string,
    ttlMs: number,
    now = new Date(),
  ): Promise<{ pendingId: string; expiresAt: Date }> {
    await this.purgeExpired(now);
    const older = await this.keys
      .find({ customer_id: customerId }, { projection: { _id: 1 } })
      .sort({ created_at: -1 })
      .skip(MAX_PENDING_PER_CUSTOMER - 1)
      .toArray();
    if (older.length > 0) await this.keys.deleteMany({ _id: { $in: older.map((doc) => doc._id) } });
    const pendingId = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + ttlMs);
    const secrets: PendingKeySecrets = { private_key: privateKeyPem };
    const doc: PendingKeyDocument = {
      _id: sha256(pendingId),
      customer_id: customerId,
      account_id: accountId,
      sealed: this.cipher.seal(secrets, aadOf(customerId, pendingId)),
      expires_at: expiresAt,
      created_at: now,
      updated_at: now,
    };
    await this.keys.insertOne(doc);
    return { pendingId, expiresAt };
  }

  /** The customer's live pending key of this id, opened; null when unknown, another customer's or expired. */
  async find(customerId: string, pendingId: string, now = new Date()): Promise<PendingSearchAdsKey | null> {
    if (!PENDING_ID_PATTERN.test(pendingId)) return null;
    const doc = await this.keys.findOne({ _id: sha256(pendingId) });
    if (doc === null || doc.customer_id !== customerId || doc.expires_at.getTime() <= now.getTime()) return null;
    const secrets = PendingKeySecretsSchema.parse(this.cipher.open(doc.sealed, aadOf(customerId, pendingId)));
    return { customerId, accountId: doc.account_id, expiresAt: doc.expires_at, secrets };
  }

  /** Replaces the sealed secrets (after a verification); false when the entry is gone. */
  async update(customerId: string, pendingId: string, secrets: PendingKeySecrets): Promise<boolean> {
    const sealed = this.cipher.seal(PendingKeySecretsSchema.parse(secrets), aadOf(customerId, pendingId));
    const result = await this.keys.updateOne(
      { _id: sha256(pendingId), customer_id: customerId },
      {
        $set: { sealed, updated_at: new Date() },
      },
    );
    return result.matchedCount === 1;
  }

  /** Removes the entry once; true only for the caller that removed it (a pending key makes one connection). */
  async take(customerId: string, pendingId: string): Promise<boolean> {
    const result = await this.keys.deleteOne({ _id: sha256(pendingId), customer_id: customerId });
    return result.deletedCount === 1;
  }
}
