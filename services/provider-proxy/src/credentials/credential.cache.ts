import type { ConnectionCredentials } from '../adapters/provider-adapter';
import type { ConnectionSource } from './connection.source';

export interface CredentialCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

export type CredentialResult =
  | { ok: true; provider: string; credentials: ConnectionCredentials; fromCache: boolean }
  | { ok: false; reason: 'not_found' | 'inactive' | 'needs_regrant' };

interface Load {
  promise: Promise<CredentialResult>;
  /** Set by invalidate(): what this load read may predate the invalidation, so it is not stored. */
  stale: boolean;
}

interface Entry {
  /** What get() answers while the entry is fresh: one object, not one per request. */
  hit: Extract<CredentialResult, { ok: true }>;
  expiresAt: number;
  /** From here on, the next get() also reads the connection again in the background; Infinity once it did. */
  refreshAt: number;
}

/** Share of the TTL after which a used entry is read again in the background, before it expires. */
const REFRESH_AHEAD_SHARE = 0.8;

/**
 * Decrypted credentials of active connections, in memory only and for a short TTL, keyed by account_id.
 * Concurrent misses for one account share one MongoDB read. Only active connections are cached: a connection
 * that is missing or inactive is read again on the next request, so a re-grant works at once.
 *
 * An entry still in use late in its TTL is read again in the background (once), so a busy connection's requests
 * do not all wait on a database read each time its entry expires; no entry is served past its TTL, so a revoke
 * is seen as soon as before.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loads = new Map<string, Load>();
  private readonly now: () => number;

  constructor(
    private readonly source: ConnectionSource,
    private readonly options: CredentialCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Rejects when the source fails (store outage, unusable credentials); nothing is cached then. */
  async get(accountId: string): Promise<CredentialResult> {
    return this.fresh(accountId) ?? this.loads.get(accountId)?.promise ?? this.startLoad(accountId);
  }

  /**
   * What get() answers from the cache while the entry is fresh, without a promise (the hot path asks this first);
   * undefined when get() has to read the connection.
   */
  fresh(accountId: string): CredentialResult | undefined {
    const entry = this.entries.get(accountId);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (entry.expiresAt > now) {
      if (now >= entry.refreshAt) this.refreshInBackground(accountId, entry);
      return entry.hit;
    }
    this.entries.delete(accountId);
    return undefined;
  }

  private startLoad(accountId: string): Promise<CredentialResult> {
    const load: Load = { promise: Promise.resolve({ ok: false, reason: 'not_found' }), stale: false };
    load.promise = this.load(accountId, load).finally(() => {
      if (this.loads.get(accountId) === load) this.loads.delete(accountId);
    });
    this.loads.set(accountId, load);
    return load.promise;
  }

  /** A failed background read is not retried: the entry serves until its TTL, then get() reads as on a miss. */
  private refreshInBackground(accountId: string, entry: Entry): void {
    entry.refreshAt = Number.POSITIVE_INFINITY;
    if (this.loads.has(accountId)) return;
    this.startLoad(accountId).catch(() => undefined);
  }

  /**
   * Forgets the account's credentials. With `accessToken`, only while that token is the cached one: when
   * many requests see the same token refused, the first drops it and the others then join its reload
   * instead of throwing away what it loads.
   */
  invalidate(accountId: string, accessToken?: string): void {
    if (accessToken !== undefined && this.entries.get(accountId)?.hit.credentials.access_token !== accessToken) return;
    this.entries.delete(accountId);
    const pending = this.loads.get(accountId);
    if (pending !== undefined) pending.stale = true;
    this.loads.delete(accountId);
  }

  private async load(accountId: string, handle: Load): Promise<CredentialResult> {
    const lookup = await this.source.lookup(accountId);
    if (!lookup.found || !lookup.active) {
      // A background read that finds the connection gone or inactive ends the entry it was refreshing.
      if (!handle.stale) this.entries.delete(accountId);
      if (!lookup.found) return { ok: false, reason: 'not_found' };
      return { ok: false, reason: lookup.status === 'needs_regrant' ? 'needs_regrant' : 'inactive' };
    }
    if (!handle.stale) this.put(accountId, lookup.provider, lookup.credentials);
    return { ok: true, provider: lookup.provider, credentials: lookup.credentials, fromCache: false };
  }

  /** Stores credentials just renewed (and already written to the store) so the next request uses them. */
  put(accountId: string, provider: string, credentials: ConnectionCredentials): void {
    const now = this.now();
    this.entries.delete(accountId);
    this.entries.set(accountId, {
      hit: { ok: true, provider, credentials, fromCache: true },
      expiresAt: now + this.options.ttlMs,
      refreshAt: now + this.options.ttlMs * REFRESH_AHEAD_SHARE,
    });
    // Map order is insertion order: the first key is the oldest load.
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
