import { JSONCodec, type KV, type KvEntry, type NatsConnection, type QueuedIterator } from 'nats';
import { followBucket } from './bucket-watch';

/** A partition lease as stored in JetStream KV. */
interface LeaseValue {
  owner: string;
  /** Wall-clock ms after which others may take the partition (plus the safety margin). */
  expiresAt: number;
  /** Revision of the write that acquired the lease: the fencing token of this ownership. */
  epoch: number;
  /**
   * Set by a clean handover: the lease is free, with what the next owner needs of the rate buckets (the ones that
   * were not full, or, from a node that held the lease only to pass it on, what it had been handed itself).
   */
  released?: PreviousOwner;
}

export interface HeldLease {
  partition: number;
  epoch: number;
  /** Revision of our last write, for compare-and-set renewals. */
  revision: number;
  /** Until when we may decide: the written expiry minus the safety margin. */
  validUntil: number;
  /**
   * What the partition's previous owner left: the rate buckets it handed over (clean handover), or the last moment
   * it may have decided when it stopped renewing (a crash: its buckets are unknown, and start spent then).
   * Absent when the partition had no owner before, or was released before handovers carried buckets.
   */
  previous?: PreviousOwner;
}

export type PreviousOwner = { rates: Record<string, number> } | { diedAt: number };

const json = JSONCodec<LeaseValue>();

/** A lease as the watch last delivered it; `value` null when the key was deleted or purged. */
interface SeenLease {
  value: LeaseValue | null;
  revision: number;
}

/**
 * Partition leases with compare-and-set in a JetStream KV bucket. A holder renews before expiry; a contender
 * takes a partition only when the lease is absent, deleted (clean handover) or expired by more than the margin,
 * while the holder stops deciding a margin before expiry — so two owners never overlap.
 *
 * Every lease reaches every node through a watch of the bucket, so looking for free or orphaned partitions on each
 * ownership tick reads memory; only an attempt to take one goes to the bucket (before, each tick read every lease
 * this node did not hold: hundreds of reads a second per node with the default 64 partitions).
 */
export class LeaseTable {
  /** partition -> its lease as last seen. */
  private readonly seen = new Map<number, SeenLease>();
  private watcher: QueuedIterator<KvEntry> | undefined;

  private constructor(
    private readonly kv: KV,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly marginMs: number,
  ) {}

  static async open(nc: NatsConnection, options: { bucket: string; nodeId: string; ttlMs: number; marginMs: number }) {
    const kv = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    const table = new LeaseTable(kv, options.nodeId, options.ttlMs, options.marginMs);
    table.watcher = await followBucket(kv, (entry) => table.remember(entry));
    return table;
  }

  close(): void {
    this.watcher?.stop();
  }

  private key(partition: number): string {
    return `p${partition}`;
  }

  /**
   * Tries to acquire a free or expired partition; null when someone else holds it. `nextEpoch` gives the fencing
   * token of this ownership; it comes from the database that holds the usage (see UsageLedger.nextEpoch), so it
   * stays above every token ever written there even when this bucket is recreated. `onlyOrphaned` takes only
   * leases whose holder stopped renewing (a dead node), not ones released on purpose.
   */
  async tryAcquire(
    partition: number,
    nowMs: number,
    nextEpoch: () => Promise<number>,
    options: { onlyOrphaned?: boolean } = {},
  ): Promise<HeldLease | null> {
    const seen = this.seen.get(partition);
    const current = seen?.value ?? null;
    let previous: HeldLease['previous'];
    if (!current) {
      // Released in a clean handover: left to the nodes below their share.
      if (options.onlyOrphaned) return null;
    } else if (current.released) {
      if (options.onlyOrphaned) return null;
      previous = current.released;
    } else {
      if (current.owner !== this.nodeId && nowMs <= current.expiresAt + this.marginMs) return null;
      previous = { diedAt: current.expiresAt };
    }
    const expiresAt = nowMs + this.ttlMs;
    const claim = json.encode({ owner: this.nodeId, expiresAt, epoch: 0 });
    let revision: number;
    try {
      revision = seen
        ? await this.kv.update(this.key(partition), claim, seen.revision)
        : await this.kv.create(this.key(partition), claim);
    } catch {
      // Lost the compare-and-set race, or the watch has not delivered the newest write yet: read it, so a watch
      // that fell behind cannot keep this node failing on a stale revision.
      await this.refresh(partition);
      return null;
    }
    const lease: HeldLease = {
      partition,
      epoch: 0,
      revision,
      validUntil: expiresAt - this.marginMs,
      ...(previous === undefined ? {} : { previous }),
    };
    try {
      lease.epoch = await nextEpoch();
    } catch {
      await this.release(lease); // no fencing token, no ownership
      return null;
    }
    return (await this.renew(lease, Date.now())) ? lease : null;
  }

  /** Extends a held lease; false when it was lost (then the holder must stop at once). */
  async renew(lease: HeldLease, nowMs: number): Promise<boolean> {
    const expiresAt = nowMs + this.ttlMs;
    try {
      lease.revision = await this.kv.update(
        this.key(lease.partition),
        json.encode({ owner: this.nodeId, expiresAt, epoch: lease.epoch }),
        lease.revision,
      );
      lease.validUntil = expiresAt - this.marginMs;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Clean handover: marks the lease free so another node can take it at once, with the rate buckets that were not
   * full (key hashes to their state), so the next owner continues them exactly. Without `rates` (a lease taken and
   * given up before any key was decided) it passes on what its own previous owner left.
   */
  async release(lease: HeldLease, rates?: Record<string, number>): Promise<void> {
    lease.validUntil = 0;
    const released: PreviousOwner = rates ? { rates } : (lease.previous ?? { rates: {} });
    try {
      await this.kv.update(
        this.key(lease.partition),
        json.encode({ owner: this.nodeId, expiresAt: 0, epoch: lease.epoch, released }),
        lease.revision,
      );
    } catch {
      // Already taken or expired: nothing to hand over.
    }
  }

  private async refresh(partition: number): Promise<void> {
    try {
      const entry = await this.kv.get(this.key(partition));
      if (entry) this.remember(entry);
    } catch {
      // the next failed attempt reads again
    }
  }

  /** Keeps the newest revision: a read and the watch may deliver the same key out of order. */
  private remember(entry: KvEntry): void {
    const partition = Number(entry.key.slice(1));
    if (!entry.key.startsWith('p') || !Number.isInteger(partition)) return;
    const known = this.seen.get(partition);
    if (known && known.revision >= entry.revision) return;
    this.seen.set(partition, {
      value: entry.operation === 'PUT' ? json.decode(entry.value) : null,
      revision: entry.revision,
    });
  }
}
