import { JSONCodec, type KV, type NatsConnection } from 'nats';

/**
 * Who may renew one connection's tokens right now. Held across every provider-proxy replica, so that one
 * platform renewal happens per expiry: a rotating refresh token used twice kills the grant.
 */
export interface RenewalLease {
  /**
   * True when this holder now holds the lease of `key` (a connection's account id, or another job's name): it was
   * free, released or expired. `ttlMs` overrides the lease's usual lifetime for this claim.
   */
  acquire(key: string, ttlMs?: number): Promise<boolean>;
  /**
   * Keeps a held lease for another full lifetime. False when another holder has it now; throws when that cannot
   * be known (NATS unreachable): the lease then stays this holder's until its last expiry.
   */
  extend(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
}

/** One process only (tests, a single replica without NATS): the in-process single-flight is the whole lease. */
export class LocalRenewalLease implements RenewalLease {
  private readonly held = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  acquire(key: string, ttlMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if ((this.held.get(key) ?? 0) > this.now()) return Promise.resolve(false);
    this.held.set(key, this.now() + ttlMs);
    return Promise.resolve(true);
  }

  extend(key: string): Promise<boolean> {
    return Promise.resolve(this.held.has(key));
  }

  release(key: string): Promise<void> {
    this.held.delete(key);
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

  private entryKey(key: string): string {
    // Account ids are [A-Za-z0-9_], job names [a-z-]: valid KV key tokens as they are.
    return `renew.${key}`;
  }

  async acquire(key: string, ttlMs = this.ttlMs): Promise<boolean> {
    const entryKey = this.entryKey(key);
    const claim = codec.encode({ holder: this.holder, expiresAt: this.now() + ttlMs });
    try {
      const entry = await this.kv.get(entryKey);
      let revision: number;
      if (entry === null || entry.operation !== 'PUT') {
        revision = await this.kv.create(entryKey, claim);
      } else {
        const current = codec.decode(entry.value);
        if (current.expiresAt > this.now()) return false;
        revision = await this.kv.update(entryKey, claim, entry.revision);
      }
      this.revisions.set(key, revision);
      return true;
    } catch {
      // Another replica's compare-and-set won.
      return false;
    }
  }

  async extend(key: string): Promise<boolean> {
    const revision = this.revisions.get(key);
    if (revision === undefined) return false;
    const claim = codec.encode({ holder: this.holder, expiresAt: this.now() + this.ttlMs });
    try {
      this.revisions.set(key, await this.kv.update(this.entryKey(key), claim, revision));
      return true;
    } catch (error) {
      const entry = await this.kv.get(this.entryKey(key));
      if (entry?.operation === 'PUT' && codec.decode(entry.value).holder === this.holder) throw error;
      this.revisions.delete(key);
      return false;
    }
  }

  async release(key: string): Promise<void> {
    const revision = this.revisions.get(key);
    if (revision === undefined) return;
    this.revisions.delete(key);
    try {
      await this.kv.update(this.entryKey(key), codec.encode({ holder: this.holder, expiresAt: 0 }), revision);
    } catch {
      // Already taken over after expiry: nothing of ours to release.
    }
  }
}
