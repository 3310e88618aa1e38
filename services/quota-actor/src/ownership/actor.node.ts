import {
  nodeBatchCodec,
  nodeBatchReplyCodec,
  nodeDecideSubject,
  type DecisionBatchReply,
  type OwnerReply,
  type Verdict,
} from '@gateway/decisions';
import { withConsumerSpan, type Logger } from '@gateway/telemetry';
import { RequestStrategy, type Msg, type NatsConnection, type Subscription } from 'nats';
import type { CustomerAllowance } from '../limits/customer-allowance';
import type { CustomerMonth } from '../limits/customer-month';
import type { UsageLedger } from '../limits/usage-ledger';
import type { KeyRecordSource } from '../partition/coalesced-key-loader';
import { PartitionActor, type ReservationObserver } from '../partition/partition.actor';
import { LeaseTable } from './lease-table';

export interface ActorNodeOptions {
  nodeId: string;
  partitions: number;
  subjectPrefix: string;
  leaseBucket: string;
  leaseTtlMs: number;
  leaseMarginMs: number;
  tickMs: number;
  flushIntervalMs: number;
  negativeTtlMs: number;
  recordTtlMs: number;
  /** Keys without a decision for this long are written out and dropped from memory. */
  idleEvictMs: number;
}

/** How long /v1/me waits for the other nodes to write a customer's counts before it reads the ledger. */
const CUSTOMER_FLUSH_WAIT_MS = 500;
/** The part of a node batch for a partition this node does not hold: the caller asks the partition's subject. */
const NOT_OWNER: DecisionBatchReply = { notOwner: true };

/** Every node listens here; a request names a customer whose counts each node writes out before it answers. */
function customerFlushSubject(prefix: string): string {
  return `${prefix}.customer_flush`;
}

export interface ActorNodeDeps {
  nc: NatsConnection;
  loader: KeyRecordSource;
  ledger: UsageLedger;
  allowance: CustomerAllowance;
  customerMonth: CustomerMonth;
  logger: Logger;
  onDecision?: (verdict: Verdict) => void;
  onReservation?: ReservationObserver;
  onOwnershipChange?: (owned: number) => void;
}

/**
 * The usage flush of a node is spread over the interval in this many slices of its partitions: the database gets a
 * small write every interval / slices instead of every key's update at once, a burst that competes with decisions
 * for the cores.
 */
const FLUSH_SLICES = 10;

/**
 * One quota-actor process: keeps its node lease alive, holds its share of the partitions on that lease (ceil(P / live
 * nodes)), runs one PartitionActor per held partition, flushes usage, and hands every partition over on stop.
 */
export class ActorNode {
  private readonly actors = new Map<number, PartitionActor>();
  private leases!: LeaseTable;
  private tickTimer?: NodeJS.Timeout;
  private flushTimer?: NodeJS.Timeout;
  private evictTimer?: NodeJS.Timeout;
  private ticking: Promise<void> = Promise.resolve();
  private nodeSubscription?: Subscription;
  private customerFlushSubscription?: Subscription;
  private stopping = false;
  private readonly offset: number;

  constructor(
    private readonly options: ActorNodeOptions,
    private readonly deps: ActorNodeDeps,
  ) {
    // Nodes start scanning at different partitions, so simultaneous starts rarely race for the same lease.
    this.offset =
      [...options.nodeId].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) >>> 0, 7) % options.partitions;
  }

  get ownedPartitions(): number[] {
    return [...this.actors.keys()].sort((a, b) => a - b);
  }

  async start(): Promise<void> {
    await this.deps.ledger.ensureEpochFloor();
    this.leases = await LeaseTable.open(this.deps.nc, {
      bucket: this.options.leaseBucket,
      nodeId: this.options.nodeId,
      ttlMs: this.options.leaseTtlMs,
      marginMs: this.options.leaseMarginMs,
    });
    const nodeSubject = nodeDecideSubject(this.options.subjectPrefix, this.options.nodeId);
    this.nodeSubscription = this.deps.nc.subscribe(nodeSubject, {
      callback: (_error, msg) => void this.decideNodeBatch(msg),
    });
    this.customerFlushSubscription = this.deps.nc.subscribe(customerFlushSubject(this.options.subjectPrefix), {
      callback: (_error, msg) => void this.flushCustomerHere(msg),
    });
    await this.tick();
    this.tickTimer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick()).catch((error: unknown) => this.logTickError(error));
    }, this.options.tickMs);
    const slices = Math.min(FLUSH_SLICES, this.options.partitions);
    let slice = 0;
    this.flushTimer = setInterval(
      () => {
        this.flushSlice(slice, slices);
        slice = (slice + 1) % slices;
      },
      Math.max(1, Math.floor(this.options.flushIntervalMs / slices)),
    );
    this.evictTimer = setInterval(
      () => this.actors.forEach((actor) => actor.evictIdle(this.options.idleEvictMs)),
      Math.max(1000, Math.floor(this.options.idleEvictMs / 4)),
    );
  }

  /** Graceful handover (SIGTERM): stop claiming, write all usage, release every lease, leave. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.tickTimer);
    clearInterval(this.flushTimer);
    clearInterval(this.evictTimer);
    // Callers then use the partition subjects, which stay served until each partition is handed over.
    this.nodeSubscription?.unsubscribe();
    this.customerFlushSubscription?.unsubscribe();
    await this.ticking;
    await Promise.all([...this.actors.keys()].map((partition) => this.handOver(partition)));
    await this.leases.leave();
    this.leases.close();
  }

  /**
   * The batches of several partitions in one message (DecisionClient sends them to the node that last answered
   * for them): each goes into its partition's queue; a partition not held here answers notOwner.
   */
  private decideNodeBatch(msg: Msg): Promise<void> {
    return withConsumerSpan(`${this.options.subjectPrefix} node decide`, msg, (span) => {
      const { parts } = nodeBatchCodec.decode(msg.data);
      let waiting = false;
      const replies = parts.map(({ partition, batch }) => {
        const reply = this.actors.get(partition)?.decideInQueue(batch, span) ?? NOT_OWNER;
        if (reply instanceof Promise) waiting = true;
        return reply;
      });
      // Most node batches are decided at once: answered in the same turn, without a promise per part.
      const answer = (decided: OwnerReply[]): void => {
        msg.respond(nodeBatchReplyCodec.encode({ parts: decided }));
      };
      if (!waiting) return answer(replies as OwnerReply[]);
      return Promise.all(replies).then(answer);
    }).catch((error: unknown) => this.deps.logger.error({ err: error }, 'node batch failed'));
  }

  /**
   * Asks every node to write the customer's unflushed counts, and waits for the answers of all that may hold some
   * (the live nodes, and during a rolling update the older ones that hold partitions). The wait is bounded: a node
   * that does not answer in time leaves its last flush interval out of the figure, never blocks it.
   */
  async flushCustomerEverywhere(customerId: string): Promise<void> {
    const expected = this.leases.countingNodes(Date.now());
    const replies = await this.deps.nc.requestMany(customerFlushSubject(this.options.subjectPrefix), customerId, {
      strategy: RequestStrategy.Count,
      maxMessages: expected,
      maxWait: CUSTOMER_FLUSH_WAIT_MS,
    });
    for await (const reply of replies) void reply;
  }

  private async flushCustomerHere(msg: Msg): Promise<void> {
    const customerId = new TextDecoder().decode(msg.data);
    try {
      await Promise.all([...this.actors.values()].map((actor) => actor.flushCustomer(customerId)));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'customer flush failed');
    }
    msg.respond();
  }

  private logTickError(error: unknown): void {
    this.deps.logger.error({ err: error }, 'ownership tick failed');
  }

  private async tick(): Promise<void> {
    if (this.stopping) return;
    const now = Date.now();
    await this.renewLease(now);
    const target = Math.ceil(this.options.partitions / this.leases.liveCount(now));
    if (this.actors.size > target) {
      // Give back one partition per tick so a joining node takes over smoothly.
      const extra = this.ownedPartitions.at(-1);
      if (extra !== undefined) await this.handOver(extra);
    } else if (this.actors.size < target) {
      await this.claimFree(target - this.actors.size, now, false);
    }
    // A dead node's partitions are taken at once by whoever sees them first, whatever the shares: a share counts the
    // dead node until its lease expires, and balance is restored by the handovers above.
    await this.claimFree(this.options.partitions, now, true);
    await this.leases.forgetDeadHolders(now);
    this.deps.onOwnershipChange?.(this.actors.size);
  }

  /**
   * Renews the node's lease once half of it is used (ticks are frequent so that free partitions are taken quickly),
   * then stops deciding for every partition lost with it or fenced off by a newer owner.
   */
  private async renewLease(now: number): Promise<void> {
    if (this.leases.validUntil - now <= this.options.leaseTtlMs / 2 && !(await this.leases.renew(now))) {
      this.deps.logger.warn({ partitions: this.ownedPartitions }, 'lost node lease');
    }
    await Promise.all(
      [...this.actors.values()]
        .filter((actor) => actor.lease.validUntil === 0)
        .map(async (actor) => {
          this.deps.logger.warn({ partition: actor.partition }, 'lost partition lease');
          this.actors.delete(actor.partition);
          await actor.stop();
        }),
    );
  }

  /**
   * Tries every partition this node does not hold, all at once: after a node dies its partitions free up together,
   * and claiming them one after another (each claim costs a few round trips) would delay the last one.
   */
  private async claimFree(wanted: number, now: number, onlyOrphaned: boolean): Promise<void> {
    const candidates = Array.from(
      { length: this.options.partitions },
      (_, i) => (this.offset + i) % this.options.partitions,
    ).filter((partition) => !this.actors.has(partition));
    const leases = await Promise.all(
      candidates.map((partition) =>
        this.leases.tryAcquire(partition, now, () => this.deps.ledger.nextEpoch(), { onlyOrphaned }),
      ),
    );
    let claimed = 0;
    for (const lease of leases) {
      if (!lease) continue;
      if (claimed >= wanted) {
        await this.leases.release(lease); // more came free than this node's share
        continue;
      }
      const actor = new PartitionActor(lease, {
        nc: this.deps.nc,
        nodeId: this.options.nodeId,
        subjectPrefix: this.options.subjectPrefix,
        loader: this.deps.loader,
        ledger: this.deps.ledger,
        flushCustomer: (customerId) => this.flushCustomerEverywhere(customerId),
        allowance: this.deps.allowance,
        customerMonth: this.deps.customerMonth,
        logger: this.deps.logger,
        negativeTtlMs: this.options.negativeTtlMs,
        recordTtlMs: this.options.recordTtlMs,
        onDecision: this.deps.onDecision,
        onReservation: this.deps.onReservation,
        onFenced: (fencedPartition) =>
          this.deps.logger.warn({ partition: fencedPartition }, 'fenced off by a newer owner'),
      });
      await actor.start();
      this.actors.set(lease.partition, actor);
      claimed++;
      this.deps.logger.info({ partition: lease.partition, epoch: lease.epoch }, 'acquired partition');
    }
  }

  private async handOver(partition: number): Promise<void> {
    const actor = this.actors.get(partition);
    if (!actor) return;
    this.actors.delete(partition);
    await actor.stop();
    await this.leases.release(actor.lease, actor.rateHandover());
    this.deps.logger.info({ partition }, 'released partition');
  }

  /**
   * One slice of the node's partitions writes its usage; the slices take turns, so every key is still written once
   * per interval. A partition whose previous write is still under way skips its turn (PartitionActor.flush).
   */
  private flushSlice(slice: number, slices: number): void {
    for (const [partition, actor] of this.actors) {
      if (partition % slices === slice) void actor.flush();
    }
  }
}
