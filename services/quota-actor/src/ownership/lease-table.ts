import { JSONCodec, type KV, type NatsConnection } from 'nats';

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

/**
 * Partition leases with compare-and-set in a JetStream KV bucket. A holder renews before expiry; a contender
 * takes a partition only when the lease is absent, deleted (clean handover) or expired by more than the margin,
 * while the holder stops deciding a margin before expiry — so two owners never overlap.
 */
export class LeaseTable {
  private constructor(
    private readonly kv: KV,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly marginMs: number,
  ) {}

  static async open(nc: NatsConnection, options: { bucket: string; nodeId: string; ttlMs: number; marginMs: number }) {
    const kv = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    return new LeaseTable(kv, options.nodeId, options.ttlMs, options.marginMs);
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
    const entry = await this.kv.get(this.key(partition));
    const expiresAt = nowMs + this.ttlMs;
    let revision: number;
    let previous: HeldLease['previous'];
    try {
      if (!entry || entry.operation !== 'PUT') {
        // Released in a clean handover: left to the nodes below their share.
        if (options.onlyOrphaned) return null;
        revision = await this.kv.create(this.key(partition), json.encode({ owner: this.nodeId, expiresAt, epoch: 0 }));
      } else {
        const current = json.decode(entry.value);
        if (current.released) {
          if (options.onlyOrphaned) return null;
          previous = current.released;
        } else {
          if (current.owner !== this.nodeId && nowMs <= current.expiresAt + this.marginMs) return null;
          previous = { diedAt: current.expiresAt };
        }
        revision = await this.kv.update(
          this.key(partition),
          json.encode({ owner: this.nodeId, expiresAt, epoch: 0 }),
          entry.revision,
        );
      }
    } catch {
      return null; // lost the compare-and-set race
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
}
