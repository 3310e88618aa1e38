import type { Connection, Model } from 'mongoose';
import { apiKeyActivityModel, type ApiKeyActivityDocument } from './api-key-activity.model';
import {
  apiKeyModel,
  API_KEY_SOURCES,
  type ApiKeyDocument,
  type ApiKeyOAuthGrant,
  type ApiKeySource,
  type ApiKeyStatus,
} from './api-key.model';
import { connectionModel, type ConnectionDocument } from './connection.model';
import { customerModel, type CustomerDocument } from './customer.model';
import { documentLockFor, type DocumentLock } from './document-lock';
import { hashApiKey, isWellFormedAccountId, newApiKeySecret, newKeyId } from './ids';
import { parseIpAllowlist } from './ip-allowlist';
import { findByIds } from './natural-ids';
import { isProviderId, type ProviderId } from './providers';
import { StoreError, isDuplicateKeyError, requireString, requireStringArray } from './store-error';

export interface ApiKeyRecord {
  key_id: string;
  /** SHA-256 of the secret: the actor's partition key, needed to tell the owner about a revoke or rotate. */
  hash: string;
  name: string;
  customer_id: string;
  providers: ProviderId[];
  account_ids: string[];
  ip_allowlist: string[];
  /** The key's connections are all the customer's connections of its providers (account_ids is then unused). */
  follows_connections: boolean;
  status: ApiKeyStatus;
  source: ApiKeySource;
  oauth: ApiKeyOAuthGrant | null;
  replaced_by: string | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What the portal lists: a key without its hash. */
export type ApiKeySummary = Omit<ApiKeyRecord, 'hash'>;

export interface CreateApiKeyInput {
  customer_id: string;
  name: string;
  providers: ProviderId[];
  account_ids?: string[];
  ip_allowlist?: string[];
  /** Default false; the oauth-server sets it on the keys consent creates (issue 15). */
  follows_connections?: boolean;
  source?: ApiKeySource;
  /** Required when source is 'oauth', absent otherwise. */
  oauth?: ApiKeyOAuthGrant;
}

/** `secret` exists only in this value: it is shown once and never stored (spec 2.1, 5.2). */
export interface CreatedApiKey {
  key: ApiKeyRecord;
  secret: string;
}

/** What the portal edits on an active key (issue 15); absent fields stay as they are. */
export interface ApiKeyChanges {
  name?: string;
  providers?: ProviderId[];
  account_ids?: string[];
  ip_allowlist?: string[];
  follows_connections?: boolean;
}

export interface RotatedApiKey extends CreatedApiKey {
  /** The old key, now revoked with replaced_by set. */
  replaced: ApiKeyRecord;
}

type KeySettings = Pick<
  ApiKeyDocument,
  'customer_id' | 'name' | 'providers' | 'account_ids' | 'ip_allowlist' | 'follows_connections' | 'source' | 'oauth'
>;

const HASH_PATTERN = /^[0-9a-f]{64}$/;
const CREATE_ATTEMPTS = 3;
// last_used_at is informational: at most one write per key per minute keeps it off the hot path's write load.
const LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_MEMORY = 50_000;

export class ApiKeyRepository {
  private readonly keys: Model<ApiKeyDocument>;
  private readonly activity: Model<ApiKeyActivityDocument>;
  private readonly customers: Model<CustomerDocument>;
  private readonly connections: Model<ConnectionDocument>;
  private readonly lock: DocumentLock;
  /** key_id -> last written last_used_at (ms), to skip writes within the resolution. */
  private readonly lastTouched = new Map<string, number>();

  constructor(connection: Connection) {
    this.keys = apiKeyModel(connection);
    this.activity = apiKeyActivityModel(connection);
    this.customers = customerModel(connection);
    this.connections = connectionModel(connection);
    this.lock = documentLockFor(connection);
  }

  /** Creates a key and returns its secret once. Throws StoreError 'invalid_input' for bad settings. */
  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const customerId = requireString(input.customer_id, 'customer_id');
    const name = requireString(input.name, 'name');
    const source = input.source ?? 'portal';
    if (!API_KEY_SOURCES.includes(source)) throw new StoreError('invalid_input', 'source must be portal or oauth');
    const oauth = validOAuthGrant(source, input.oauth);
    if ((await this.customers.exists({ _id: customerId })) === null) {
      throw new StoreError('invalid_input', `customer ${customerId} does not exist`);
    }
    return this.insert({
      customer_id: customerId,
      name,
      providers: validProviders(input.providers),
      account_ids: await this.validAccounts(customerId, input.account_ids ?? []),
      ip_allowlist: validIpAllowlist(input.ip_allowlist ?? []),
      follows_connections: validFlag(input.follows_connections ?? false, 'follows_connections'),
      source,
      oauth,
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    if (typeof hash !== 'string' || !HASH_PATTERN.test(hash)) return null;
    return this.withLastUsed(await this.keys.findOne({ _id: hash }).lean());
  }

  async findByKeyId(keyId: string): Promise<ApiKeyRecord | null> {
    return this.withLastUsed(await this.keys.findOne({ key_id: requireString(keyId, 'key_id') }).lean());
  }

  /** Every key of the customer, oldest first, without hashes (the `_id` is the hash too). */
  async listByCustomer(customerId: string): Promise<ApiKeySummary[]> {
    const docs = await this.keys
      .find({ customer_id: requireString(customerId, 'customer_id') }, { _id: 0, hash: 0 })
      .sort({ created_at: 1 })
      .lean<Omit<ApiKeyDocument, '_id' | 'hash'>[]>();
    const lastUsed = await this.lastUsedOf(docs.map((doc) => doc.key_id));
    return docs.map((doc) => toApiKeySummary(doc, lastUsed.get(doc.key_id) ?? null));
  }

  /** Spec 3: effective immediately. Idempotent: a revoked key comes back unchanged. Null if unknown. */
  async revoke(keyId: string, at: Date = new Date()): Promise<ApiKeyRecord | null> {
    requireString(keyId, 'key_id');
    return this.lock.run(`api_keys:${keyId}`, async () => {
      const doc = await this.keys
        .findOneAndUpdate(
          { key_id: keyId, status: 'active' },
          { $set: { status: 'revoked', revoked_at: at } },
          { new: true },
        )
        .lean();
      return doc === null ? this.findByKeyId(keyId) : this.withLastUsed(doc);
    });
  }

  /**
   * Spec 3: a new key with the same settings, shown once; the old key is revoked with replaced_by.
   * Null when there is no active key with that id. Without transactions the order matters: the new key is
   * inserted first and the old one revoked only if it is still active, else the new key is removed again,
   * so two rotations cannot both succeed and a crash in between leaves the old key working.
   */
  async rotate(keyId: string): Promise<RotatedApiKey | null> {
    requireString(keyId, 'key_id');
    return this.lock.run(`api_keys:${keyId}`, async () => {
      const old = await this.keys.findOne({ key_id: keyId, status: 'active' }).lean();
      if (old === null) return null;
      const created = await this.insert({
        customer_id: old.customer_id,
        name: old.name,
        providers: old.providers,
        account_ids: old.account_ids,
        ip_allowlist: old.ip_allowlist,
        follows_connections: old.follows_connections ?? false,
        source: old.source,
        oauth: old.oauth,
      });
      const replaced = await this.keys
        .findOneAndUpdate(
          { key_id: keyId, status: 'active' },
          { $set: { status: 'revoked', revoked_at: new Date(), replaced_by: created.key.key_id } },
          { new: true },
        )
        .lean();
      if (replaced === null) {
        await this.keys.deleteOne({ _id: created.key.hash });
        return null;
      }
      return { ...created, replaced: (await this.withLastUsed(replaced))! };
    });
  }

  /** Replaces the allowlist of an active key; entries are validated and normalised. Null if not active. */
  async setIpAllowlist(keyId: string, entries: string[]): Promise<ApiKeyRecord | null> {
    return this.updateActive(keyId, { ip_allowlist: validIpAllowlist(entries) });
  }

  /** Replaces the connections of an active key; each must be a connection of the key's customer. */
  async setAccounts(keyId: string, accountIds: string[]): Promise<ApiKeyRecord | null> {
    const key = await this.keys
      .findOne({ key_id: requireString(keyId, 'key_id'), status: 'active' }, { customer_id: 1 })
      .lean();
    if (key === null) return null;
    return this.updateActive(keyId, { account_ids: await this.validAccounts(key.customer_id, accountIds) });
  }

  async setProviders(keyId: string, providers: ProviderId[]): Promise<ApiKeyRecord | null> {
    return this.updateActive(keyId, { providers: validProviders(providers) });
  }

  /**
   * Applies the portal's edit of an active key in one write: every field is validated first (StoreError
   * 'invalid_input'), so a bad field changes nothing. Null when the key is not active.
   */
  async update(keyId: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | null> {
    const key = await this.keys
      .findOne({ key_id: requireString(keyId, 'key_id'), status: 'active' }, { customer_id: 1 })
      .lean();
    if (key === null) return null;
    const set: Partial<ApiKeyDocument> = {};
    if (changes.name !== undefined) set.name = requireString(changes.name, 'name').trim();
    if (changes.providers !== undefined) set.providers = validProviders(changes.providers);
    if (changes.account_ids !== undefined) {
      set.account_ids = await this.validAccounts(key.customer_id, changes.account_ids);
    }
    if (changes.ip_allowlist !== undefined) set.ip_allowlist = validIpAllowlist(changes.ip_allowlist);
    if (changes.follows_connections !== undefined) {
      set.follows_connections = validFlag(changes.follows_connections, 'follows_connections');
    }
    if (set.name === '') throw new StoreError('invalid_input', 'name must not be empty');
    if (Object.keys(set).length === 0) {
      const current = await this.findByKeyId(keyId);
      return current?.status === 'active' ? current : null;
    }
    return this.updateActive(keyId, set);
  }

  /** The customer's active keys that follow its connections: their actors reload when a connection is granted. */
  async listFollowingConnections(customerId: string): Promise<ApiKeyRecord[]> {
    const docs = await this.keys
      .find({ customer_id: requireString(customerId, 'customer_id'), status: 'active', follows_connections: true })
      .lean();
    return Promise.all(docs.map(async (doc) => (await this.withLastUsed(doc))!));
  }

  /** Records use (the key's actor calls it); writes at most once per key per minute from this process. */
  async touchLastUsed(keyId: string, at: Date = new Date()): Promise<void> {
    requireString(keyId, 'key_id');
    const previous = this.lastTouched.get(keyId);
    if (previous !== undefined && at.getTime() - previous < LAST_USED_RESOLUTION_MS) return;
    this.rememberTouch(keyId, at.getTime());
    await this.lock.run(`api_key_activity:${keyId}`, async () => {
      const write = () =>
        this.activity.updateOne(
          { _id: keyId },
          { $max: { last_used_at: at }, $setOnInsert: { key_id: keyId } },
          { upsert: true },
        );
      try {
        await write();
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        await write();
      }
    });
  }

  private rememberTouch(keyId: string, atMs: number): void {
    if (this.lastTouched.size >= LAST_USED_MEMORY) {
      for (const [id, ms] of this.lastTouched) if (atMs - ms >= LAST_USED_RESOLUTION_MS) this.lastTouched.delete(id);
      if (this.lastTouched.size >= LAST_USED_MEMORY) this.lastTouched.clear();
    }
    this.lastTouched.set(keyId, atMs);
  }

  private async updateActive(keyId: string, set: Partial<ApiKeyDocument>): Promise<ApiKeyRecord | null> {
    requireString(keyId, 'key_id');
    return this.lock.run(`api_keys:${keyId}`, async () =>
      this.withLastUsed(
        await this.keys.findOneAndUpdate({ key_id: keyId, status: 'active' }, { $set: set }, { new: true }).lean(),
      ),
    );
  }

  private async insert(settings: KeySettings): Promise<CreatedApiKey> {
    for (let attempt = 1; ; attempt += 1) {
      const secret = newApiKeySecret();
      const hash = hashApiKey(secret);
      try {
        const doc = await this.keys.create({
          ...settings,
          _id: hash,
          key_id: newKeyId(),
          hash,
          status: 'active',
        });
        return { key: toApiKeyRecord(doc.toObject(), null), secret };
      } catch (error) {
        // 8 base62 characters make a key_id collision rare but not impossible; draw again (a new secret too).
        if (!isDuplicateKeyError(error) || attempt >= CREATE_ATTEMPTS) throw error;
      }
    }
  }

  private async withLastUsed(doc: ApiKeyDocument | null): Promise<ApiKeyRecord | null> {
    if (doc === null) return null;
    const lastUsed = await this.lastUsedOf([doc.key_id]);
    return toApiKeyRecord(doc, lastUsed.get(doc.key_id) ?? null);
  }

  private async lastUsedOf(keyIds: string[]): Promise<Map<string, Date>> {
    const docs = await findByIds<ApiKeyActivityDocument, Pick<ApiKeyActivityDocument, '_id' | 'last_used_at'>>(
      this.activity,
      keyIds,
      { last_used_at: 1 },
    );
    return new Map(docs.map((doc) => [doc._id, doc.last_used_at]));
  }

  /** A key may only name connections of its own customer (spec 5.1 rule 3 relies on this). */
  private async validAccounts(customerId: string, accountIds: unknown): Promise<string[]> {
    const unique = [...new Set(requireStringArray(accountIds, 'account_ids'))];
    const malformed = unique.filter((id) => !isWellFormedAccountId(id));
    if (malformed.length > 0) throw new StoreError('invalid_input', `malformed account ids: ${malformed.join(', ')}`);
    if (unique.length === 0) return [];
    const found = await findByIds<ConnectionDocument, Pick<ConnectionDocument, '_id' | 'customer_id'>>(
      this.connections,
      unique,
      { customer_id: 1 },
    );
    const ownedIds = new Set(found.filter((doc) => doc.customer_id === customerId).map((doc) => doc._id));
    const foreign = unique.filter((id) => !ownedIds.has(id));
    if (foreign.length > 0) {
      throw new StoreError('invalid_input', `not connections of customer ${customerId}: ${foreign.join(', ')}`);
    }
    return unique;
  }
}

function validProviders(providers: unknown): ProviderId[] {
  const list = requireStringArray(providers, 'providers');
  const unknown = list.filter((provider) => !isProviderId(provider));
  if (unknown.length > 0) throw new StoreError('invalid_input', `unknown providers: ${unknown.join(', ')}`);
  return [...new Set(list)] as ProviderId[];
}

function validFlag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new StoreError('invalid_input', `${field} must be true or false`);
  return value;
}

function validIpAllowlist(entries: unknown): string[] {
  if (!Array.isArray(entries)) throw new StoreError('invalid_input', 'ip_allowlist must be an array of strings');
  const parsed = parseIpAllowlist(entries as string[]);
  if (!parsed.ok) throw new StoreError('invalid_input', `invalid ip_allowlist entries: ${parsed.invalid.join(', ')}`);
  return parsed.entries;
}

function validOAuthGrant(source: ApiKeySource, oauth: ApiKeyOAuthGrant | undefined): ApiKeyOAuthGrant | null {
  if (source === 'portal') {
    if (oauth !== undefined) throw new StoreError('invalid_input', 'oauth is only set on keys with source oauth');
    return null;
  }
  if (oauth === undefined) throw new StoreError('invalid_input', 'a key with source oauth needs client_id and subject');
  return {
    client_id: requireString(oauth.client_id, 'oauth.client_id'),
    subject: requireString(oauth.subject, 'oauth.subject'),
  };
}

function toApiKeySummary(doc: Omit<ApiKeyDocument, '_id' | 'hash'>, lastUsedAt: Date | null): ApiKeySummary {
  return {
    key_id: doc.key_id,
    name: doc.name,
    customer_id: doc.customer_id,
    providers: [...doc.providers],
    account_ids: [...doc.account_ids],
    ip_allowlist: [...doc.ip_allowlist],
    follows_connections: doc.follows_connections ?? false,
    status: doc.status,
    source: doc.source,
    oauth: doc.oauth ? { client_id: doc.oauth.client_id, subject: doc.oauth.subject } : null,
    replaced_by: doc.replaced_by ?? null,
    revoked_at: doc.revoked_at ?? null,
    last_used_at: lastUsedAt,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

function toApiKeyRecord(doc: ApiKeyDocument, lastUsedAt: Date | null): ApiKeyRecord {
  return { ...toApiKeySummary(doc, lastUsedAt), hash: doc.hash };
}
