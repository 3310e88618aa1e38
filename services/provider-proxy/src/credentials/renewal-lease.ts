import { JSONCodec, type KV, type NatsConnection } from 'nats';

/**
 * Who may renew one connection's tokens right now. Held across every provider-proxy replica, so that one
 * platform renewal happens per expiry: a rotating refresh token used twice kills the grant.
 */
export interface RenewalLease {
  /** True when this holder now holds the connection's lease (free, released or expired before). */
  acquire(accountId: string): Promise<boolean>;
  release(accountId: string): Promise<void>;
}

/** One process only (tests, a single replica without NATS): the in-process single-flight is the whole lease. */
export class LocalRenewalLease implements RenewalLease {
  private readonly held = new Set<string>();

  acquire(accountId: string): Promise<boolean> {
    if (this.held.has(accountId)) return Promise.resolve(false);
    this.held.add(accountId);
    return Promise.resolve(true);
  }

  release(accountId: string): Promise<void> {
    this.held.delete(accountId);
    return Promise.resolve();
  }
}

interface LeaseValue {
  holder: string;
  /** Unix ms; 0 once released. */
  expiresAt: number;
}

const codec = JSONCodec<LeaseValue>();

/**
 * A lease per connection in a NATS JetStream KV bucket, taken by compare-and-set on the entry's revision. A
 * holder that dies keeps it until `ttlMs` passes, longer than any renewal call may take.
 */
export class NatsRenewalLease implements RenewalLease {
  private readonly revisions = new Map<string, number>();

  private constructor(
    private readonly kv: KV,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  static async open(
    nc: NatsConnection,
    options: { bucket: string; holder: string; ttlMs: number; now?: () => number },
  ): Promise<NatsRenewalLease> {
    const kv = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    return new NatsRenewalLease(kv, options.holder, options.ttlMs, options.now ?? Date.now);
  }

  private key(accountId: string): string {
    // Account ids are [A-Za-z0-9_]: valid KV key tokens as they are.
    return `renew.${accountId}`;
  }

  async acquire(accountId: string): Promise<boolean> {
    const key = this.key(accountId);
    const claim = codec.encode({ holder: this.holder, expiresAt: this.now() + this.ttlMs });
    try {
      const entry = await this.kv.get(key);
      let revision: number;
      if (entry === null || entry.operation !== 'PUT') {
        revision = await this.kv.create(key, claim);
      } else {
        const current = codec.decode(entry.value);
        if (current.expiresAt > this.now()) return false;
        revision = await this.kv.update(key, claim, entry.revision);
      }
      this.revisions.set(accountId, revision);
      return true;
    } catch {
      // Another replica's compare-and-set won.
      return false;
    }
  }

  async release(accountId: string): Promise<void> {
    const revision = this.revisions.get(accountId);
    if (revision === undefined) return;
    this.revisions.delete(accountId);
    try {
      await this.kv.update(this.key(accountId), codec.encode({ holder: this.holder, expiresAt: 0 }), revision);
    } catch {
      // Already taken over after expiry: nothing of ours to release.
    }
  }
}
