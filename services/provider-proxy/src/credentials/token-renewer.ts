import type { ConnectionCredentials, ProviderAdapter } from '../adapters/provider-adapter';
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
  /** Called once per platform renewal call, with its outcome (metrics). */
  onRenewal?: (provider: string, outcome: string) => void;
}

export interface RenewRequest {
  accountId: string;
  adapter: ProviderAdapter;
  /** The credentials the caller holds. */
  seen: ConnectionCredentials;
  /** The platform refused `seen.access_token`: renew even when its expiry says it is still valid. */
  refused: boolean;
  deadline: number;
  signal: AbortSignal;
}

/**
 * Renews refreshable and minted tokens ahead of expiry and once after the platform refused one, single-flight
 * per connection: within this process through a shared promise, across replicas through the RenewalLease.
 * Under the lease it reads the store again first, so a replica that waited finds the tokens another one just
 * stored and makes no platform call: one renewal per expiry, whatever the number of replicas and requests.
 * New tokens are stored (sealed) before anyone uses them.
 */
export class TokenRenewer {
  private readonly flights = new Map<string, Promise<RenewalResult>>();
  private readonly now: () => number;
  private readonly pollMs: number;

  constructor(private readonly options: TokenRenewerOptions) {
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? 50;
  }

  /** True when `credentials` should be renewed before they are used. */
  isDue(adapter: ProviderAdapter, credentials: ConnectionCredentials): boolean {
    if (adapter.tokens.kind === 'long-lived' || credentials.access_token_expires_at === undefined) return false;
    return Date.parse(credentials.access_token_expires_at) - this.now() < adapter.tokens.renewAheadMs;
  }

  /** A long-lived grant the platform refuses is dead: the customer must re-grant it. */
  async markNeedsRegrant(accountId: string): Promise<void> {
    this.options.cache.invalidate(accountId);
    await this.options.source.markNeedsRegrant(accountId);
  }

  private isExpired(credentials: ConnectionCredentials): boolean {
    const expiresAt = Date.parse(credentials.access_token_expires_at ?? '');
    return !(expiresAt > this.now());
  }

  renew(request: RenewRequest): Promise<RenewalResult> {
    const running = this.flights.get(request.accountId);
    if (running !== undefined) return running;
    const flight = this.renewAcrossReplicas(request).finally(() => {
      if (this.flights.get(request.accountId) === flight) this.flights.delete(request.accountId);
    });
    this.flights.set(request.accountId, flight);
    return flight;
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
      if (this.now() + this.pollMs >= request.deadline || request.signal.aborted) {
        return { ok: false, reason: 'unavailable', detail: 'another replica is renewing the connection tokens' };
      }
      await delay(this.pollMs, request.signal);
    }
  }

  private async renewHoldingLease(request: RenewRequest): Promise<RenewalResult> {
    const { source, cache, onRenewal } = this.options;
    const stored = await this.read(request);
    if (!stored.ok) return stored;
    if (this.usable(request, stored.credentials)) return { ...stored, renewed: false };
    const outcome = await request.adapter.renew!(stored.credentials, request.signal);
    onRenewal?.(request.adapter.provider, outcome.ok ? 'renewed' : outcome.reason);
    if (!outcome.ok) {
      if (outcome.reason === 'unavailable') return { ok: false, reason: 'unavailable', detail: outcome.detail };
      await source.markNeedsRegrant(request.accountId);
      cache.invalidate(request.accountId);
      return { ok: false, reason: 'needs_regrant', detail: outcome.detail };
    }
    // Stored before use: a rotated refresh token that only lived in memory would be lost with this process.
    if (!(await source.store(request.accountId, outcome.credentials))) {
      cache.invalidate(request.accountId);
      return { ok: false, reason: 'inactive', detail: 'the connection was revoked or re-granted meanwhile' };
    }
    cache.put(request.accountId, request.adapter.provider, outcome.credentials);
    return { ok: true, credentials: outcome.credentials, renewed: true };
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

  /** Tokens another renewal already replaced, still valid: use them instead of renewing again. */
  private usable(request: RenewRequest, stored: ConnectionCredentials): boolean {
    if (this.isDue(request.adapter, stored)) return false;
    return !request.refused || stored.access_token !== request.seen.access_token;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
