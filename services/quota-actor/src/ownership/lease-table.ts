import { randomBytes } from 'node:crypto';
import {
  JSONCodec,
  type JetStreamManager,
  type KV,
  type KvEntry,
  type NatsConnection,
  type QueuedIterator,
} from 'nats';
import { followBucket } from './bucket-watch';

/** A partition's lease as stored in JetStream KV, under `p<partition>`. */
interface PartitionValue {
  owner: string;
  /**
   * The key of the node lease the ownership lives on (`h.<id>`): the partition is held while that node lease is.
   * Absent in leases written by nodes from before node leases, which renewed each partition on its own.
   */
  holder?: string;
  /**
   * Wall-clock ms after which others may take the partition (plus the safety margin), for a lease without a holder.
   * A lease with a holder says HELD_WHILE_HOLDER_LIVES, so that an older node in a rolling update, which knows only
   * this field, never counts it expired.
   */
  expiresAt: number;
  /** Revision of the write that acquired the lease: the fencing token of this ownership. */
  epoch: number;
  /**
   * Set by a clean handover: the lease is free, with what the next owner needs of the rate buckets (the ones that
   * were not full, or, from a node that held the lease only to pass it on, what it had been handed itself).
   */
  released?: PreviousOwner;
}

/** A node lease, under `h.<id>`: one per node process, renewed for all the partitions it holds. */
interface HolderValue {
  node: string;
  /** Wall-clock ms after which others may declare the holder dead (plus the safety margin). */
  expiresAt: number;
  /** Written by a contender once the lease had expired: its renewals fail from then on, and it never comes back. */
  dead?: true;
}

export interface HeldLease {
  partition: number;
  epoch: number;
  /** Revision of our last write of the partition's key, for compare-and-set on release. */
  revision: number;
  /**
   * Until when we may decide: the node lease's written expiry minus the safety margin, moved on by each renewal of
   * the node lease; 0 once the partition is released, fenced or lost.
   */
  validUntil: number;
  /**
   * What the partition's previous owner left: the rate buckets it handed over (clean handover), or the last moment
   * it may have decided when it stopped renewing (a crash: its buckets are unknown, and start spent then).
   * Absent when the partition had no owner before, or was released before handovers carried buckets.
   */
  previous?: PreviousOwner;
}

export type PreviousOwner = { rates: Record<string, number> } | { diedAt: number };

const HELD_WHILE_HOLDER_LIVES = Number.MAX_SAFE_INTEGER;
/**
 * How long the marker a removed node lease leaves stays in the bucket: long enough for every node's watch to have
 * seen the removal, after which any node purges it, so the bucket does not keep one marker per process that ever ran.
 */
export const REMOVED_LEASE_MARKER_KEPT_MS = 60_000;
/**
 * The shortest a write or read of the bucket may wait for its answer (the lease's life when longer). An answer that
 * comes after the lease's life is of no use, and while NATS is away every renewal waits this long, twice (the renewal,
 * then the new lease): with the client's default of 5 s, decisions resumed up to 10 s after NATS came back.
 */
const REQUEST_TIMEOUT_FLOOR_MS = 1_000;
const partitionJson = JSONCodec<PartitionValue>();
const holderJson = JSONCodec<HolderValue>();

/** A key as the watch last delivered it; `value` null when the key was deleted or purged. */
interface Seen<T> {
  value: T | null;
  revision: number;
  /** When that write was made (wall-clock ms). */
  writtenAt: number;
}

/**
 * Partition ownership in a JetStream KV bucket, with one lease per node. The node renews only its own lease (`h.<id>`,
 * compare-and-set at half its life), whatever the number of partitions it holds; a partition's key names the node
 * lease it lives on and is written only when the partition is taken or released. The holder stops deciding a margin
 * before its lease expires. A contender takes a dead node's partitions only after it has marked that node lease dead
 * (compare-and-set on the revision it saw expire), so the node's next renewal fails and it never decides again on that
 * lease; the partitions then go by compare-and-set each, as a free one does. Two owners never overlap.
 *
 * Every key reaches every node through a watch of the bucket, so looking for free or orphaned partitions, or counting
 * the live nodes, on each ownership tick reads memory; only an attempt to take a partition goes to the bucket.
 */
export class LeaseTable {
  /** partition -> its lease as last seen. */
  private readonly partitions = new Map<number, Seen<PartitionValue>>();
  /** node lease key -> as last seen. */
  private readonly holders = new Map<string, Seen<HolderValue>>();
  /** Node leases being marked dead by this node: each dead node costs one write, however many partitions it held. */
  private readonly burying = new Map<string, Promise<number | null>>();
  /** Partitions held on this node's lease, whose validity each renewal moves on. */
  private readonly held = new Map<number, HeldLease>();
  private holder = { key: '', revision: 0, validUntil: 0 };
  private watcher: QueuedIterator<KvEntry> | undefined;

  private constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly marginMs: number,
  ) {}

  static async open(nc: NatsConnection, options: { bucket: string; nodeId: string; ttlMs: number; marginMs: number }) {
    const timeout = Math.max(REQUEST_TIMEOUT_FLOOR_MS, options.ttlMs);
    const kv = await nc.jetstream({ timeout }).views.kv(options.bucket, { history: 1 });
    const jsm = await nc.jetstreamManager({ timeout });
    const table = new LeaseTable(kv, jsm, options.bucket, options.nodeId, options.ttlMs, options.marginMs);
    // The watch keeps the client's own timeouts for the consumer it recreates after a reconnect.
    const watched = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    table.watcher = await followBucket(watched, (entry) => table.remember(entry));
    await table.register(Date.now());
    return table;
  }

  close(): void {
    this.watcher?.stop();
  }

  /**
   * This node and every other whose lease has not expired: the membership the nodes share the partitions by
   * (ceil(P / live)). A node counts once, with the leases of its earlier starts.
   */
  liveCount(nowMs: number): number {
    return this.liveNodes(nowMs).size;
  }

  /**
   * The live nodes plus the nodes from before node leases that hold a partition (during a rolling update): every node
   * that may hold counts a customer flush must wait for.
   */
  countingNodes(nowMs: number): number {
    const nodes = this.liveNodes(nowMs);
    for (const { value } of this.partitions.values()) {
      if (value && value.holder === undefined && !value.released && !this.expired(value, nowMs)) {
        nodes.add(value.owner);
      }
    }
    return nodes.size;
  }

  private liveNodes(nowMs: number): Set<string> {
    const live = new Set([this.nodeId]);
    for (const { value } of this.holders.values()) {
      if (value && !value.dead && value.expiresAt >= nowMs) live.add(value.node);
    }
    return live;
  }

  /** Until when this node may decide for the partitions it holds. */
  get validUntil(): number {
    return this.holder.validUntil;
  }

  /**
   * Extends this node's lease, and with it every partition held on it; false when it was lost (marked dead by a
   * contender, or the write failed): then every held lease is void at once, and the node goes on with a new lease
   * of its own, holding nothing.
   */
  async renew(nowMs: number): Promise<boolean> {
    const expiresAt = nowMs + this.ttlMs;
    try {
      this.holder.revision = await this.kv.update(
        this.holder.key,
        holderJson.encode({ node: this.nodeId, expiresAt }),
        this.holder.revision,
      );
    } catch {
      for (const lease of this.held.values()) lease.validUntil = 0;
      this.held.clear();
      this.holder.validUntil = 0;
      await this.register(Date.now()).catch(() => undefined); // a failed start is tried again on the next renewal
      return false;
    }
    this.holder.validUntil = expiresAt - this.marginMs;
    for (const lease of this.held.values()) {
      if (lease.validUntil === 0) this.held.delete(lease.partition);
      else lease.validUntil = this.holder.validUntil;
    }
    return true;
  }

  /**
   * Tries to acquire a free or orphaned partition; null when someone else holds it. `nextEpoch` gives the fencing
   * token of this ownership; it comes from the database that holds the usage (see UsageLedger.nextEpoch), so it
   * stays above every token ever written there even when this bucket is recreated. `onlyOrphaned` takes only
   * partitions whose holder stopped renewing (a dead node), not ones released on purpose.
   */
  async tryAcquire(
    partition: number,
    nowMs: number,
    nextEpoch: () => Promise<number>,
    options: { onlyOrphaned?: boolean } = {},
  ): Promise<HeldLease | null> {
    if (this.holder.validUntil <= nowMs) return null;
    const seen = this.partitions.get(partition);
    const current = seen?.value ?? null;
    let previous: HeldLease['previous'];
    if (!current) {
      // Released in a clean handover: left to the nodes below their share.
      if (options.onlyOrphaned) return null;
    } else if (current.released) {
      if (options.onlyOrphaned) return null;
      previous = current.released;
    } else {
      const diedAt = await this.ownerGone(current, nowMs);
      if (diedAt === null) return null;
      previous = { diedAt };
    }
    const claim = { owner: this.nodeId, holder: this.holder.key, expiresAt: HELD_WHILE_HOLDER_LIVES, epoch: 0 };
    let revision: number;
    try {
      revision = seen
        ? await this.kv.update(this.key(partition), partitionJson.encode(claim), seen.revision)
        : await this.kv.create(this.key(partition), partitionJson.encode(claim));
    } catch {
      // Lost the compare-and-set race, or the watch has not delivered the newest write yet: read it, so a watch
      // that fell behind cannot keep this node failing on a stale revision.
      await this.refresh(this.key(partition));
      return null;
    }
    const lease: HeldLease = {
      partition,
      epoch: 0,
      revision,
      validUntil: 0,
      ...(previous === undefined ? {} : { previous }),
    };
    try {
      lease.epoch = await nextEpoch();
      lease.revision = await this.kv.update(
        this.key(partition),
        partitionJson.encode({ ...claim, epoch: lease.epoch }),
        lease.revision,
      );
    } catch {
      await this.release(lease); // no fencing token, no ownership
      return null;
    }
    if (claim.holder !== this.holder.key || this.holder.validUntil <= Date.now()) {
      await this.release(lease); // this node's lease was lost meanwhile
      return null;
    }
    lease.validUntil = this.holder.validUntil;
    this.held.set(partition, lease);
    return lease;
  }

  /**
   * Clean handover: marks the lease free so another node can take it at once, with the rate buckets that were not
   * full (key hashes to their state), so the next owner continues them exactly. Without `rates` (a lease taken and
   * given up before any key was decided) it passes on what its own previous owner left.
   */
  async release(lease: HeldLease, rates?: Record<string, number>): Promise<void> {
    lease.validUntil = 0;
    this.held.delete(lease.partition);
    const released: PreviousOwner = rates ? { rates } : (lease.previous ?? { rates: {} });
    try {
      await this.kv.update(
        this.key(lease.partition),
        partitionJson.encode({ owner: this.nodeId, expiresAt: 0, epoch: lease.epoch, released }),
        lease.revision,
      );
    } catch {
      // Already taken: nothing to hand over.
    }
  }

  /** After every partition was released: the node lease goes, so nobody has to wait for it to expire. */
  async leave(): Promise<void> {
    this.holder.validUntil = 0;
    try {
      await this.kv.delete(this.holder.key, { previousSeq: this.holder.revision });
    } catch {
      // already marked dead: it stays as it is
    }
  }

  /**
   * Removes node leases that are dead or long expired and that no partition names any more, so the bucket does not
   * gather one key per node process that ever ran. Compare-and-set: a node that renewed meanwhile keeps its lease.
   * The markers such removals left are purged once every node has seen them (REMOVED_LEASE_MARKER_KEPT_MS).
   */
  async forgetDeadHolders(nowMs: number): Promise<void> {
    const named = new Set<string>();
    for (const { value } of this.partitions.values()) {
      if (value?.holder !== undefined && !value.released) named.add(value.holder);
    }
    const gone = [...this.holders].filter(
      ([key, { value }]) =>
        value !== null && key !== this.holder.key && !named.has(key) && (value.dead || this.expired(value, nowMs)),
    );
    const markers = [...this.holders].filter(
      ([, { value, writtenAt }]) => value === null && writtenAt <= nowMs - REMOVED_LEASE_MARKER_KEPT_MS,
    );
    await Promise.all([
      ...gone.map(([key, { revision }]) =>
        this.kv.delete(key, { previousSeq: revision }).catch(() => this.refresh(key)),
      ),
      ...markers.map(([key, { revision }]) => this.purgeMarker(key, revision)),
    ]);
  }

  /** Purges a removed node lease's marker, and nothing written to its key after it (a node marking it dead again). */
  private async purgeMarker(key: string, revision: number): Promise<void> {
    try {
      await this.jsm.streams.purge(`KV_${this.bucket}`, { filter: `$KV.${this.bucket}.${key}`, seq: revision + 1 });
      if (this.holders.get(key)?.revision === revision) this.holders.delete(key);
    } catch {
      // the next tick tries again
    }
  }

  /**
   * When the owner of a held partition may last have decided, once it is gone; null while it may still decide.
   * A lease without a holder expires on its own; a node lease is first marked dead (once, whatever the number of its
   * partitions this node is after).
   */
  private async ownerGone(current: PartitionValue, nowMs: number): Promise<number | null> {
    if (current.holder === undefined) {
      return current.owner !== this.nodeId && !this.expired(current, nowMs) ? null : current.expiresAt;
    }
    // A partition left on this node's own lease but no longer decided here (fenced off, say): taken again.
    if (current.holder === this.holder.key) return nowMs;
    const holder = this.holders.get(current.holder)?.value;
    if (holder?.dead) return holder.expiresAt;
    if (holder && !this.expired(holder, nowMs)) return null;
    let burial = this.burying.get(current.holder);
    if (!burial) {
      burial = this.bury(current.holder, nowMs).finally(() => this.burying.delete(current.holder!));
      this.burying.set(current.holder, burial);
    }
    return burial;
  }

  /**
   * Marks an expired (or deleted) node lease dead; resolves with when its node may last have decided, or null when
   * the lease was renewed meanwhile (or another node's write came first: the watch then tells the rest).
   */
  private async bury(key: string, nowMs: number): Promise<number | null> {
    const seen = this.holders.get(key);
    const diedAt = seen?.value ? seen.value.expiresAt : nowMs;
    const dead = holderJson.encode({ node: seen?.value?.node ?? '', expiresAt: diedAt, dead: true });
    try {
      if (seen?.value) await this.kv.update(key, dead, seen.revision);
      else await this.kv.create(key, dead);
      return diedAt;
    } catch {
      await this.refresh(key);
      const now = this.holders.get(key)?.value;
      return now?.dead ? now.expiresAt : null;
    }
  }

  /** A lease (a node's, or an old-form partition's) whose holder may no longer decide. */
  private expired(lease: { expiresAt: number }, nowMs: number): boolean {
    return nowMs > lease.expiresAt + this.marginMs;
  }

  /** A node lease of its own for this node: a fresh key each time, since a lease marked dead never comes back. */
  private async register(nowMs: number): Promise<void> {
    const key = `h.${randomBytes(8).toString('hex')}`;
    const expiresAt = nowMs + this.ttlMs;
    const revision = await this.kv.create(key, holderJson.encode({ node: this.nodeId, expiresAt }));
    this.holder = { key, revision, validUntil: expiresAt - this.marginMs };
  }

  private key(partition: number): string {
    return `p${partition}`;
  }

  private async refresh(key: string): Promise<void> {
    const before = this.holders.get(key);
    try {
      const entry = await this.kv.get(key);
      if (entry) this.remember(entry);
      // A node lease removed and purged while this copy was behind: the watch never delivers a purge.
      else if (before && this.holders.get(key) === before) this.holders.delete(key);
    } catch {
      // the next failed attempt reads again
    }
  }

  /** Keeps the newest revision: a read and the watch may deliver the same key out of order. */
  private remember(entry: KvEntry): void {
    if (entry.key.startsWith('h.')) {
      remember(this.holders, entry.key, entry, holderJson.decode);
      return;
    }
    const partition = Number(entry.key.slice(1));
    if (entry.key.startsWith('p') && Number.isInteger(partition)) {
      remember(this.partitions, partition, entry, partitionJson.decode);
    }
  }
}

function remember<K, T>(seen: Map<K, Seen<T>>, key: K, entry: KvEntry, decode: (bytes: Uint8Array) => T): void {
  const known = seen.get(key);
  if (known && known.revision >= entry.revision) return;
  seen.set(key, {
    value: entry.operation === 'PUT' ? decode(entry.value) : null,
    revision: entry.revision,
    writtenAt: entry.created.getTime(),
  });
}
