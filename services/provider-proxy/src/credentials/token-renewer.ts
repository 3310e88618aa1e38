import { performance } from 'node:perf_hooks';
import type { CredentialsWrite } from '@gateway/store';
import type { Logger } from '@gateway/telemetry';
import type { ConnectionCredentials, ProviderAdapter } from '../adapters/provider-adapter';
import type { CancelSignal } from '../proxy/cancellation';
import type { ConnectionSource } from './connection.source';
import type { CredentialCache } from './credential.cache';
import type { RenewalLease } from './renewal-lease';

export type RenewalResult =
  | { ok: true; credentials: ConnectionCredentials; renewed: boolean }
  | { ok: false; reason: 'needs_regrant' | 'unavailable' | 'inactive'; detail: string };

export interface TokenRenewerOptions {
  source: ConnectionSource;
  cache: CredentialCache;
  lease: RenewalLease;
  /** How often a replica that waits for another one's renewal reads the store again. */
  pollMs?: number;
  now?: () => number;
  /**
   * Called once per platform renewal call with its outcome (metrics); for a stored renewal also with the time
   * from sending it to the store's acknowledgement of the new tokens (ms), in which a crash loses a rotating grant.
   */
  onRenewal?: (provider: string, outcome: string, exposedMs?: number) => void;
  logger?: Logger;
  /** How often the lease of a renewal in progress is extended; well below the lease's lifetime. */
  leaseExtendMs?: number;
  /** Writes of new tokens tried before they are given up; the waits between them double from storeRetryMs. */
  storeAttempts?: number;
  storeRetryMs?: number;
}

export interface RenewRequest {
  accountId: string;
  adapter: ProviderAdapter;
  /** The credentials the caller holds. */
  seen: ConnectionCredentials;
  /** The platform refused `seen.access_token`: renew even when its expiry says it is still valid. */
  refused: boolean;
  /** Renew also when the refresh token has less than this left (the refresh-token sweep). */
  refreshTokenMarginMs?: number;
  /** The longest a replica waits for another replica's renewal. */
  deadline: number;
  /**
   * Aborted when the caller stops waiting. The renewal itself goes on: a rotating refresh token is spent once the
   * platform has the request, so its answer is read and stored whatever happens to the caller.
   */
  stopWaiting: CancelSignal;
}

/**
 * Renews refreshable and minted tokens ahead of expiry and once after the platform refused one, single-flight
 * per connection: within this process through a shared promise, across replicas through the RenewalLease.
 * Under the lease it reads the store again first, so a replica that waited finds the tokens another one just
 * stored and makes no platform call: one renewal per expiry, whatever the number of replicas and requests.
 * New tokens are stored (sealed) before anyone uses them. A renewal runs in the background of the replica, owned
 * by no caller, until its new tokens are stored: only a crash of the process can lose them.
 */
export class TokenRenewer {
  private readonly flights = new Map<string, Promise<RenewalResult>>();
  private readonly now: () => number;
  private readonly pollMs: number;
  private readonly leaseExtendMs: number;
  private readonly storeAttempts: number;
  private readonly storeRetryMs: number;

  constructor(private readonly options: TokenRenewerOptions) {
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? 50;
    this.leaseExtendMs = options.leaseExtendMs ?? 5_000;
    this.storeAttempts = options.storeAttempts ?? 5;
    this.storeRetryMs = options.storeRetryMs ?? 200;
  }

  /** True when `credentials` should be renewed before they are used. */
  isDue(adapter: ProviderAdapter, credentials: ConnectionCredentials): boolean {
    if (adapter.tokens.kind === 'long-lived' || credentials.access_token_expires_at === undefined) return false;
    return Date.parse(credentials.access_token_expires_at) - this.now() < adapter.tokens.renewAheadMs;
  }

  /**
   * A long-lived grant the platform refuses is dead: the customer must re-grant it. `superseded` when they already
   * did (the stored token is no longer the refused one).
   */
  async markNeedsRegrant(accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite> {
    this.options.cache.invalidate(accountId);
    return this.options.source.markNeedsRegrant(accountId, refused);
  }

  private isExpired(credentials: ConnectionCredentials): boolean {
    const expiresAt = Date.parse(credentials.access_token_expires_at ?? '');
    return !(expiresAt > this.now());
  }

  /** The renewal's outcome, or `unavailable` as soon as the caller stops waiting (the renewal goes on). */
  renew(request: RenewRequest): Promise<RenewalResult> {
    let flight = this.flights.get(request.accountId);
    if (flight === undefined) {
      const started = this.renewAcrossReplicas(request)
        .catch((error: unknown) => {
          this.options.logger?.error({ account_id: request.accountId, err: errorName(error) }, 'token renewal failed');
          return { ok: false, reason: 'unavailable', detail: 'the connection tokens could not be renewed' } as const;
        })
        .finally(() => {
          if (this.flights.get(request.accountId) === started) this.flights.delete(request.accountId);
        });
      this.flights.set(request.accountId, started);
      flight = started;
    }
    return untilStopped(flight, request.stopWaiting);
  }

  /** Resolves when no renewal is in progress any more (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.flights.size > 0) await Promise.allSettled([...this.flights.values()]);
  }

  private async renewAcrossReplicas(request: RenewRequest): Promise<RenewalResult> {
    const { lease } = this.options;
    for (;;) {
      if (await lease.acquire(request.accountId)) {
        try {
          return await this.renewHoldingLease(request);
        } finally {
          await lease.release(request.accountId);
        }
      }
      // Another replica renews: its tokens reach the store before it releases the lease. Tokens renewed only
      // ahead of expiry still work, so the request goes on with them instead of waiting for that replica.
      if (!request.refused && !this.isExpired(request.seen)) {
        return { ok: false, reason: 'unavailable', detail: 'another replica is renewing the connection tokens' };
      }
      const stored = await this.read(request);
      if (stored.ok && this.usable(request, stored.credentials)) return { ...stored, renewed: false };
      if (!stored.ok && stored.reason !== 'unavailable') return stored;
      if (this.now() + this.pollMs >= request.deadline || request.stopWaiting.aborted) {
        return { ok: false, reason: 'unavailable', detail: 'another replica is renewing the connection tokens' };
      }
      await delay(this.pollMs, request.stopWaiting);
    }
  }

  private async renewHoldingLease(request: RenewRequest): Promise<RenewalResult> {
    const stored = await this.read(request);
    if (!stored.ok) return stored;
    if (this.usable(request, stored.credentials)) return { ...stored, renewed: false };
    // The platform call has no deadline of ours (the HTTP client's own bounds a platform that never answers):
    // the lease is kept while it lasts, so no other replica spends the same refresh token meanwhile.
    const keeper = setInterval(() => void this.extendLease(request.accountId), this.leaseExtendMs);
    keeper.unref();
    try {
      return await this.renewAndStore(request, stored.credentials);
    } finally {
      clearInterval(keeper);
    }
  }

  private async renewAndStore(request: RenewRequest, stored: ConnectionCredentials): Promise<RenewalResult> {
    const { source, cache, onRenewal, logger } = this.options;
    const { accountId, adapter } = request;
    const sentAt = performance.now();
    const outcome = await adapter.renew!(stored);
    if (!outcome.ok) {
      onRenewal?.(adapter.provider, outcome.reason);
      if (outcome.reason === 'unavailable') return { ok: false, reason: 'unavailable', detail: outcome.detail };
      const marked = await source.markNeedsRegrant(accountId, stored);
      cache.invalidate(accountId);
      // The old grant was refused because the customer replaced it: the new one is not marked, and is used.
      if (marked === 'superseded') return this.regranted(request);
      if (marked === 'inactive')
        return { ok: false, reason: 'inactive', detail: 'the connection was revoked meanwhile' };
      return { ok: false, reason: 'needs_regrant', detail: outcome.detail };
    }
    // Stored before use: a rotated refresh token that only lived in memory would be lost with this process.
    const answeredAt = performance.now();
    const written = await this.storeWithRetries(accountId, stored, outcome.credentials);
    const exposedMs = performance.now() - sentAt;
    onRenewal?.(adapter.provider, written === 'stored' ? 'renewed' : `store_${written}`, exposedMs);
    if (written === 'inactive') {
      cache.invalidate(accountId);
      return { ok: false, reason: 'inactive', detail: 'the connection was revoked meanwhile' };
    }
    if (written === 'superseded') {
      // The customer re-granted while the old grant was renewed: the new grant's tokens stay, and this request
      // uses them. What the platform renewed is dropped.
      cache.invalidate(accountId);
      logger?.info({ account_id: accountId, provider: adapter.provider }, 'renewed tokens superseded by a re-grant');
      return this.regranted(request);
    }
    if (written === 'failed') {
      cache.invalidate(accountId);
      logger?.error(
        { account_id: accountId, provider: adapter.provider, attempts: this.storeAttempts },
        'renewed tokens could not be stored: a rotating grant is lost',
      );
      return { ok: false, reason: 'unavailable', detail: 'the renewed connection tokens could not be stored' };
    }
    logger?.info(
      {
        account_id: accountId,
        provider: adapter.provider,
        exposed_ms: Math.round(exposedMs * 10) / 10,
        store_ms: Math.round((performance.now() - answeredAt) * 10) / 10,
      },
      'connection tokens renewed',
    );
    cache.put(accountId, adapter.provider, outcome.credentials);
    return { ok: true, credentials: outcome.credentials, renewed: true };
  }

  /**
   * A failed write is tried again, with doubling waits, while this replica still holds the lease: once another
   * replica holds it, that one reads the old tokens and its refresh is refused anyway.
   */
  private async storeWithRetries(
    accountId: string,
    renewedFrom: ConnectionCredentials,
    renewed: ConnectionCredentials,
  ): Promise<CredentialsWrite | 'failed'> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.options.source.store(accountId, renewedFrom, renewed);
      } catch (error) {
        if (attempt >= this.storeAttempts) return 'failed';
        this.options.logger?.warn(
          { account_id: accountId, attempt, err: errorName(error) },
          'storing renewed tokens failed; retrying',
        );
      }
      await delay(this.storeRetryMs * 2 ** (attempt - 1));
      if (!(await this.extendLease(accountId))) return 'failed';
    }
  }

  /** The tokens a re-grant stored while the old grant was renewed or refused, for the request that waited. */
  private async regranted(request: RenewRequest): Promise<RenewalResult> {
    const current = await this.read(request);
    if (!current.ok) return current;
    this.options.cache.put(request.accountId, request.adapter.provider, current.credentials);
    return { ok: true, credentials: current.credentials, renewed: false };
  }

  /** False only when another holder has the lease; an unreachable NATS leaves it ours until it expires. */
  private async extendLease(accountId: string): Promise<boolean> {
    try {
      return await this.options.lease.extend(accountId);
    } catch {
      return true;
    }
  }

  /** The stored tokens, past the cache. */
  private async read(
    request: RenewRequest,
  ): Promise<{ ok: true; credentials: ConnectionCredentials } | Extract<RenewalResult, { ok: false }>> {
    let lookup;
    try {
      lookup = await this.options.source.lookup(request.accountId);
    } catch {
      return { ok: false, reason: 'unavailable', detail: 'the connection could not be read' };
    }
    if (!lookup.found) return { ok: false, reason: 'inactive', detail: 'there is no such connection' };
    if (!lookup.active) {
      return lookup.status === 'needs_regrant'
        ? { ok: false, reason: 'needs_regrant', detail: 'the connection needs a re-grant' }
        : { ok: false, reason: 'inactive', detail: 'the connection is not active' };
    }
    return { ok: true, credentials: lookup.credentials };
  }

  /** True when the refresh token has less than `marginMs` left. */
  refreshTokenDue(credentials: ConnectionCredentials, marginMs: number): boolean {
    if (credentials.refresh_token === undefined || credentials.refresh_token_expires_at === undefined) return false;
    return Date.parse(credentials.refresh_token_expires_at) - this.now() < marginMs;
  }

  /** Tokens another renewal already replaced, still valid: use them instead of renewing again. */
  private usable(request: RenewRequest, stored: ConnectionCredentials): boolean {
    if (this.isDue(request.adapter, stored)) return false;
    const margin = request.refreshTokenMarginMs;
    if (margin !== undefined && this.refreshTokenDue(stored, margin)) return false;
    return !request.refused || stored.access_token !== request.seen.access_token;
  }
}

const STOPPED: RenewalResult = { ok: false, reason: 'unavailable', detail: 'the caller stopped waiting' };

function untilStopped(flight: Promise<RenewalResult>, signal: CancelSignal): Promise<RenewalResult> {
  if (signal.aborted) return Promise.resolve(STOPPED);
  return new Promise((resolve) => {
    const stop = () => resolve(STOPPED);
    signal.addEventListener('abort', stop, { once: true });
    void flight.then((result) => {
      signal.removeEventListener('abort', stop);
      resolve(result);
    });
  });
}

function delay(ms: number, signal?: CancelSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
