import type { Connection, Model } from 'mongoose';
import {
  connectionModel,
  CONNECTION_STATUSES,
  type ConnectionDocument,
  type ConnectionStatus,
} from './connection.model';
import { CredentialCipherError, type CredentialCipher, type SealedCredentials } from './credential-cipher';
import { customerModel, type CustomerDocument } from './customer.model';
import { documentLockFor, type DocumentLock } from './document-lock';
import { newAccountId } from './ids';
import { parsePlatformCredentials, type PlatformCredentials } from './platform-credentials';
import { isProviderId, type ProviderId } from './providers';
import { StoreError, isDuplicateKeyError, requireString, requireStringArray } from './store-error';

/** A connection without its credentials: what every reader except provider-proxy gets. */
export interface ConnectionRecord {
  account_id: string;
  customer_id: string;
  provider: ProviderId;
  external_account_ids: string[];
  status: ConnectionStatus;
  granted_at: Date;
  /** Which keyring key sealed the credentials (helps operators follow a key rotation). */
  credentials_kid: string;
  created_at: Date;
  updated_at: Date;
}

export interface CreateConnectionInput {
  customer_id: string;
  provider: ProviderId;
  external_account_ids: string[];
  credentials: PlatformCredentials;
}

/** Connections not revoked are the ones that count against the plan's allowance (spec 8). */
const COUNTED_STATUSES: readonly ConnectionStatus[] = ['active', 'needs_regrant'];
const CREATE_ATTEMPTS = 3;
/** Rounds of read, compare and conditional write when something else keeps changing the ciphertext. */
const REPLACE_ATTEMPTS = 5;

/** What became of a write made over known tokens (replaceCredentials, markNeedsRegrant). */
export type CredentialsWrite = 'stored' | 'superseded' | 'inactive';
// Metadata reads leave the ciphertext in the database; only the kid comes back. (FerretDB 1.24 has no
// projection on findAndModify, so updates return the whole document and the mapper drops the ciphertext.)
const WITHOUT_CIPHERTEXT = { 'credentials.iv': 0, 'credentials.tag': 0, 'credentials.data': 0 } as const;

export class ConnectionRepository {
  private readonly connections: Model<ConnectionDocument>;
  private readonly customers: Model<CustomerDocument>;
  private readonly lock: DocumentLock;

  /**
   * The cipher is optional: services that only read connection metadata (the limiter) never hold the
   * credential key; sealing and opening then fail with StoreError 'no_cipher'.
   */
  constructor(
    connection: Connection,
    private readonly cipher?: CredentialCipher,
  ) {
    this.connections = connectionModel(connection);
    this.customers = customerModel(connection);
    this.lock = documentLockFor(connection);
  }

  async create(input: CreateConnectionInput): Promise<ConnectionRecord> {
    const customerId = requireString(input.customer_id, 'customer_id');
    if (!isProviderId(input.provider)) throw new StoreError('invalid_input', 'provider is not a known provider id');
    const externalAccountIds = requireStringArray(input.external_account_ids, 'external_account_ids');
    const credentials = validCredentials(input.credentials);
    const cipher = this.requireCipher();
    if ((await this.customers.exists({ _id: customerId })) === null) {
      throw new StoreError('invalid_input', `customer ${customerId} does not exist`);
    }
    for (let attempt = 1; ; attempt += 1) {
      const accountId = newAccountId();
      try {
        const doc = await this.connections.create({
          _id: accountId,
          account_id: accountId,
          customer_id: customerId,
          provider: input.provider,
          external_account_ids: externalAccountIds,
          credentials: cipher.seal(credentials, accountId),
          refresh_token_expires_at: refreshTokenExpiry(credentials),
          status: 'active',
          granted_at: new Date(),
        });
        return toConnectionRecord(doc.toObject());
      } catch (error) {
        // An account id collision is astronomically rare; anything else is not ours to retry.
        if (!isDuplicateKeyError(error) || attempt >= CREATE_ATTEMPTS) throw error;
      }
    }
  }

  /** Spec 3: re-grant keeps the account id; new credentials, status active again. Null if unknown. */
  async regrant(
    accountId: string,
    credentials: PlatformCredentials,
    externalAccountIds?: string[],
  ): Promise<ConnectionRecord | null> {
    requireString(accountId, 'account_id');
    const valid = validCredentials(credentials);
    const cipher = this.requireCipher();
    const set: Partial<ConnectionDocument> = {
      credentials: cipher.seal(valid, accountId),
      refresh_token_expires_at: refreshTokenExpiry(valid),
      status: 'active',
      granted_at: new Date(),
    };
    if (externalAccountIds !== undefined) {
      set.external_account_ids = requireStringArray(externalAccountIds, 'external_account_ids');
    }
    const doc = await this.lock.run(`connections:${accountId}`, () =>
      this.connections.findOneAndUpdate({ _id: accountId }, { $set: set }, { new: true }).lean(),
    );
    return doc === null ? null : toConnectionRecord(doc);
  }

  async findByAccountId(accountId: string): Promise<ConnectionRecord | null> {
    const doc = await this.connections
      .findOne({ _id: requireString(accountId, 'account_id') }, WITHOUT_CIPHERTEXT)
      .lean();
    return doc === null ? null : toConnectionRecord(doc);
  }

  async listByCustomer(customerId: string): Promise<ConnectionRecord[]> {
    const docs = await this.connections
      .find({ customer_id: requireString(customerId, 'customer_id') }, WITHOUT_CIPHERTEXT)
      .sort({ created_at: 1 })
      .lean();
    return docs.map(toConnectionRecord);
  }

  /**
   * One page of the active connections of `providers` whose refresh token expires by `dueBy`, in account id order
   * after `after` (provider-proxy's refresh-token sweep, page by page), and those written before the expiry was kept
   * in the clear, which only opening them tells. Ids and providers only.
   */
  async listRefreshDue(
    providers: readonly ProviderId[],
    dueBy: Date,
    after: string | undefined,
    limit: number,
  ): Promise<{ account_id: string; provider: ProviderId }[]> {
    const filter: Record<string, unknown> = {
      status: 'active',
      provider: { $in: providers.filter(isProviderId) },
      $or: [{ refresh_token_expires_at: { $lte: dueBy } }, { refresh_token_expires_at: { $exists: false } }],
    };
    if (after !== undefined) filter._id = { $gt: requireString(after, 'after') };
    const docs = await this.connections
      .find(filter, { account_id: 1, provider: 1 })
      .sort({ _id: 1 })
      .limit(limit)
      .lean<Pick<ConnectionDocument, 'account_id' | 'provider'>[]>();
    return docs.map((doc) => ({ account_id: doc.account_id, provider: doc.provider }));
  }

  /** Connections that count against the allowance (not revoked), unless other statuses are asked for. */
  async countByCustomer(customerId: string, statuses: readonly ConnectionStatus[] = COUNTED_STATUSES): Promise<number> {
    return this.connections.countDocuments({
      customer_id: requireString(customerId, 'customer_id'),
      status: { $in: statuses.filter((status) => CONNECTION_STATUSES.includes(status)) },
    });
  }

  async setStatus(accountId: string, status: ConnectionStatus): Promise<ConnectionRecord | null> {
    if (!CONNECTION_STATUSES.includes(status)) throw new StoreError('invalid_input', 'unknown connection status');
    requireString(accountId, 'account_id');
    const doc = await this.lock.run(`connections:${accountId}`, () =>
      this.connections.findOneAndUpdate({ _id: accountId }, { $set: { status } }, { new: true }).lean(),
    );
    return doc === null ? null : toConnectionRecord(doc);
  }

  /**
   * The decrypted tokens, for provider-proxy only. Null unless the connection exists and is active: tokens of a
   * revoked or refused connection are never handed out.
   */
  async loadCredentials(accountId: string): Promise<PlatformCredentials | null> {
    requireString(accountId, 'account_id');
    return (await this.openActive(accountId))?.credentials ?? null;
  }

  /**
   * After a token refresh (provider-proxy): `renewed` replaces `renewedFrom`, the tokens the refresh started from,
   * and only those. A re-grant or another renewal in between wrote tokens that are newer than the refreshed ones:
   * the write is refused as `superseded` and the newer ones stay. `inactive` when the connection is no longer
   * active. A key rotation in between re-encrypted the same tokens: the write goes ahead.
   */
  async replaceCredentials(
    accountId: string,
    renewedFrom: PlatformCredentials,
    renewed: PlatformCredentials,
  ): Promise<CredentialsWrite> {
    requireString(accountId, 'account_id');
    const valid = validCredentials(renewed);
    const sealed = this.requireCipher().seal(valid, accountId);
    return this.writeOverTokens(accountId, renewedFrom, {
      credentials: sealed,
      refresh_token_expires_at: refreshTokenExpiry(valid),
    });
  }

  /**
   * The platform refused `refused` for good (provider-proxy): the connection needs a re-grant, unless its tokens
   * changed meanwhile (`superseded`: the customer re-granted while the old grant was being refused).
   */
  async markNeedsRegrant(accountId: string, refused: PlatformCredentials): Promise<CredentialsWrite> {
    requireString(accountId, 'account_id');
    return this.writeOverTokens(accountId, refused, { status: 'needs_regrant' });
  }

  /** `set` applied to an active connection whose tokens are still `expected`, judged on what is stored now. */
  private writeOverTokens(
    accountId: string,
    expected: PlatformCredentials,
    set: Partial<ConnectionDocument>,
  ): Promise<CredentialsWrite> {
    return this.lock.run(`connections:${accountId}`, async () => {
      for (let attempt = 1; ; attempt += 1) {
        const current = await this.openActive(accountId);
        if (current === null) return 'inactive';
        if (!sameTokens(current.credentials, expected)) return 'superseded';
        // Written only over the ciphertext just read: whatever changed it since is read and judged again.
        const result = await this.connections.updateOne(
          { _id: accountId, status: 'active', 'credentials.data': current.sealed.data },
          { $set: set },
        );
        if (result.matchedCount === 1) return 'stored';
        if (attempt >= REPLACE_ATTEMPTS) {
          throw new StoreError('conflict', `the credentials of ${accountId} kept changing while they were replaced`);
        }
      }
    });
  }

  /**
   * Key rotation: re-encrypts every connection not sealed with the active key. Each write is conditional on
   * the ciphertext being unchanged, so a concurrent re-grant or refresh is never overwritten (skipped).
   * A ciphertext that does not open is listed in `failed` and left as it is; the others still move on.
   */
  async resealAll(): Promise<{ resealed: number; skipped: number; failed: string[] }> {
    const cipher = this.requireCipher();
    let resealed = 0;
    let skipped = 0;
    const failed: string[] = [];
    const cursor = this.connections
      .find({ 'credentials.kid': { $ne: cipher.activeKeyId } }, { account_id: 1, credentials: 1 })
      .lean<Pick<ConnectionDocument, 'account_id' | 'credentials'>[]>()
      .cursor();
    for await (const doc of cursor as AsyncIterable<Pick<ConnectionDocument, 'account_id' | 'credentials'>>) {
      let sealed: SealedCredentials;
      try {
        sealed = cipher.reseal(doc.credentials, doc.account_id);
      } catch (error) {
        if (!(error instanceof CredentialCipherError)) throw error;
        failed.push(doc.account_id);
        continue;
      }
      const result = await this.lock.run(`connections:${doc.account_id}`, () =>
        this.connections.updateOne(
          { _id: doc.account_id, 'credentials.data': doc.credentials.data },
          { $set: { credentials: sealed } },
        ),
      );
      if (result.modifiedCount === 1) resealed += 1;
      else skipped += 1;
    }
    return { resealed, skipped, failed };
  }

  /** An active connection's ciphertext and what it opens to; null when the connection is missing or not active. */
  private async openActive(
    accountId: string,
  ): Promise<{ sealed: SealedCredentials; credentials: PlatformCredentials } | null> {
    const cipher = this.requireCipher();
    // Status is checked here rather than in the filter: a filter of `_id` alone is the one FerretDB runs in SQLite.
    const doc = await this.connections
      .findOne({ _id: accountId }, { credentials: 1, status: 1 })
      .lean<Pick<ConnectionDocument, 'credentials' | 'status'>>();
    if (doc === null || doc.status !== 'active') return null;
    const parsed = parsePlatformCredentials(cipher.open(doc.credentials, accountId));
    if (!parsed.ok) throw new StoreError('integrity', `stored credentials of ${accountId} have an unexpected shape`);
    return { sealed: doc.credentials, credentials: parsed.credentials };
  }

  private requireCipher(): CredentialCipher {
    if (this.cipher === undefined) {
      throw new StoreError('no_cipher', 'this store was opened without a credential cipher');
    }
    return this.cipher;
  }
}

/** The instant the refresh token expires, or null when there is none to renew (no refresh token, or no expiry). */
function refreshTokenExpiry(credentials: PlatformCredentials): Date | null {
  if (credentials.refresh_token === undefined || credentials.refresh_token_expires_at === undefined) return null;
  return new Date(credentials.refresh_token_expires_at);
}

/** The same grant at the same point of its life: the tokens a platform hands out are unique. */
function sameTokens(a: PlatformCredentials, b: PlatformCredentials): boolean {
  return a.access_token === b.access_token && a.refresh_token === b.refresh_token;
}

function validCredentials(value: unknown): PlatformCredentials {
  const parsed = parsePlatformCredentials(value);
  if (!parsed.ok) {
    throw new StoreError('invalid_input', `credentials are invalid in: ${parsed.fields.join(', ')}`);
  }
  return parsed.credentials;
}

export function toConnectionRecord(doc: ConnectionDocument): ConnectionRecord {
  return {
    account_id: doc.account_id,
    customer_id: doc.customer_id,
    provider: doc.provider,
    external_account_ids: [...doc.external_account_ids],
    status: doc.status,
    granted_at: doc.granted_at,
    credentials_kid: doc.credentials.kid,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
