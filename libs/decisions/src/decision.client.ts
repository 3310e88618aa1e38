import { randomBytes } from 'node:crypto';
import { withProducerSpan } from '@gateway/telemetry';
import type { MsgHdrs, NatsConnection } from 'nats';
import {
  batchCodec,
  batchReplyCodec,
  controlCodec,
  controlReplyCodec,
  nodeBatchCodec,
  nodeBatchReplyCodec,
  type ControlMessage,
  type DecisionBatchReply,
} from './codec';
import {
  DEFAULT_PARTITIONS,
  DEFAULT_SUBJECT_PREFIX,
  keyChangedSubject,
  nodeDecideSubject,
  partitionOf,
  partitionSubjects,
} from './partitions';
import { RefusalHold } from './refusal-hold';
import { NoRespondersError, ReplyInbox, ReplyTimeoutError } from './reply-inbox';
import type { DecisionRequest, Reject, Verdict } from './verdict';

export interface DecisionClientOptions {
  partitions?: number;
  subjectPrefix?: string;
  /** Wait for one owner's answer. */
  requestTimeoutMs?: number;
  /**
   * How long a decision may keep retrying while a partition has no owner (failover, handover). Longer than the
   * lease takeover time so a failover is invisible to callers.
   */
  retryBudgetMs?: number;
  /**
   * Refuse again, without asking, what the owner said it would refuse for a while (RefusalHold): the edges and
   * mcp-server, which take the traffic of keys over their rate or quota. Subscribes to key changes.
   */
  holdRefusals?: boolean;
  /** Sees each refusal answered from a hold (metrics). */
  onHeldRefusal?: (verdict: Verdict) => void;
}

interface Pending {
  request: DecisionRequest;
  resolve: (verdict: Verdict) => void;
}

/** One partition's decisions of one event-loop turn; its id stays the same over every attempt. */
interface PartitionBatch {
  partition: number;
  pending: Pending[];
  batchId: string;
}

const UNAVAILABLE: Verdict = { ok: false, code: 'service_unavailable', detail: 'no quota owner answered in time' };

/**
 * Asks the key's actor for verdicts. Requests made in the same event-loop turn are grouped per partition, and the
 * partitions whose owner node is known (every answer names it) go to that node in one NATS request, so a turn
 * costs one round trip per node rather than one per partition (docs/benchmarks.md: batching is worth 30-50x). A
 * partition whose owner is unknown, or whose node no longer owns it, is asked on its own subject, which always
 * reaches the current owner. Never rejects: an unreachable owner yields a service_unavailable verdict.
 */
export class DecisionClient {
  private readonly partitions: number;
  private readonly prefix: string;
  private readonly requestTimeoutMs: number;
  private readonly retryBudgetMs: number;
  private queued = new Map<number, Pending[]>();
  private flushScheduled = false;
  private readonly instanceId = randomBytes(6).toString('base64url');
  private nextBatch = 0;
  /** partition -> node id of its owner, as the last answer for that partition said. */
  private readonly owners = new Map<number, string>();
  private readonly inbox: ReplyInbox;
  private readonly hold: RefusalHold | undefined;
  private readonly onHeldRefusal: ((verdict: Verdict) => void) | undefined;

  constructor(nc: NatsConnection, options: DecisionClientOptions = {}) {
    this.inbox = new ReplyInbox(nc);
    this.partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.prefix = options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 750;
    this.retryBudgetMs = options.retryBudgetMs ?? 4_000;
    this.onHeldRefusal = options.onHeldRefusal;
    if (options.holdRefusals) {
      const hold = new RefusalHold();
      this.hold = hold;
      nc.subscribe(keyChangedSubject(this.prefix), {
        callback: (_error, msg) => hold.forget(new TextDecoder().decode(msg.data)),
      });
    }
  }

  /**
   * The refusal a hold repeats for this request now, without asking the owner; undefined when nothing is held (then
   * ask with decide). Synchronous, so a caller answers a held refusal in the same turn, without a promise.
   */
  heldRefusal(request: DecisionRequest): Reject | undefined {
    const held = this.hold?.refusalFor(request, Date.now());
    if (held) this.onHeldRefusal?.(held);
    return held;
  }

  decide(request: DecisionRequest): Promise<Verdict> {
    const hold = this.hold;
    if (!hold) return this.ask(request);
    const held = this.heldRefusal(request);
    if (held) return Promise.resolve(held);
    const sentAt = Date.now();
    return this.ask(request).then((verdict) => {
      if (!verdict.ok) hold.remember(request, verdict, sentAt, Date.now());
      return verdict;
    });
  }

  private ask(request: DecisionRequest): Promise<Verdict> {
    return new Promise((resolve) => {
      const partition = partitionOf(request.keyHash, this.partitions);
      const queue = this.queued.get(partition);
      if (queue) queue.push({ request, resolve });
      else this.queued.set(partition, [{ request, resolve }]);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Tells the key's owner that the key changed in MongoDB and waits until it applied the change. */
  async notifyKeyChanged(keyHash: string): Promise<void> {
    await this.control(keyHash, { op: 'key_changed', keyHash });
  }

  async refund(keyHash: string, count = 1): Promise<void> {
    await this.control(keyHash, { op: 'refund', keyHash, count });
  }

  /** Gives back a suggestion that was granted but not given (the AI timed out or answered something invalid). */
  async refundSuggestion(keyHash: string): Promise<void> {
    await this.control(keyHash, { op: 'refund_suggestion', keyHash });
  }

  private flush(): void {
    this.flushScheduled = false;
    const queued = this.queued;
    this.queued = new Map();
    const giveUpAt = Date.now() + this.retryBudgetMs;
    const byOwner = new Map<string, PartitionBatch[]>();
    for (const [partition, pending] of queued) {
      const batch: PartitionBatch = { partition, pending, batchId: this.newBatchId() };
      const owner = this.owners.get(partition);
      if (owner === undefined) {
        void this.send(batch, giveUpAt);
        continue;
      }
      const group = byOwner.get(owner);
      if (group) group.push(batch);
      else byOwner.set(owner, [batch]);
    }
    for (const [owner, batches] of byOwner) {
      if (batches.length === 1) void this.send(batches[0]!, giveUpAt);
      else void this.sendToNode(owner, batches, giveUpAt);
    }
  }

  private newBatchId(): string {
    return `${this.instanceId}.${(this.nextBatch++).toString(36)}`;
  }

  /**
   * One request to the node that owned these partitions at the last answer. Parts it no longer owns, and all of
   * them when the node does not answer, go on through their partition subjects under the same batch ids: an owner
   * that did decide a part answers the repeat from memory, so nothing is counted twice.
   */
  private sendToNode(owner: string, batches: PartitionBatch[], giveUpAt: number): Promise<void> {
    const subject = nodeDecideSubject(this.prefix, owner);
    return withProducerSpan(
      `${this.prefix} decide`,
      {
        'messaging.destination.name': subject,
        'messaging.batch.message_count': batches.reduce((sum, batch) => sum + batch.pending.length, 0),
      },
      async (headers) => {
        const now = Date.now();
        const timeout = Math.max(1, Math.min(this.requestTimeoutMs, giveUpAt - now));
        const expiresAt = now + timeout;
        const retryForMs = Math.max(0, giveUpAt - now);
        const payload = nodeBatchCodec.encode({
          parts: batches.map(({ partition, pending, batchId }) => ({
            partition,
            batch: { requests: pending.map((item) => item.request), expiresAt, batchId, retryForMs },
          })),
        });
        let replies: DecisionBatchReply[] = [];
        try {
          const message = await this.inbox.request(subject, payload, timeout, headers);
          replies = nodeBatchReplyCodec.decode(message.data).parts;
        } catch {
          // Dead, leaving or overloaded: the partition subjects find the current owners.
        }
        batches.forEach((batch, index) => {
          const reply = replies[index];
          if (reply && 'verdicts' in reply) return this.settle(batch.pending, reply.verdicts);
          if (reply && 'expired' in reply) return this.settle(batch.pending);
          if (this.owners.get(batch.partition) === owner) this.owners.delete(batch.partition);
          void this.send(batch, giveUpAt);
        });
      },
    );
  }

  private settle(pending: Pending[], verdicts?: Verdict[]): void {
    pending.forEach((item, index) => item.resolve(verdicts?.[index] ?? UNAVAILABLE));
  }

  /**
   * One NATS request per batch, traced as a PRODUCER span whose context travels in the message headers. The batch
   * runs in the context of the request that opened it; every decision also carries its own request's traceparent
   * (DecisionRequest.traceparent), which the actor's span of that decision takes as its parent.
   */
  private send(batch: PartitionBatch, giveUpAt: number): Promise<void> {
    const subject = partitionSubjects(this.prefix, batch.partition).decide;
    return withProducerSpan(
      `${this.prefix} decide`,
      { 'messaging.destination.name': subject, 'messaging.batch.message_count': batch.pending.length },
      (headers) => this.sendBatch(subject, batch, giveUpAt, headers),
    );
  }

  /**
   * Retries while the budget lasts when no owner answered: no responders, the owner refused the batch as not its
   * own, or a timeout (the owner died, or is overloaded). Every attempt carries its own deadline and an owner skips a
   * batch whose deadline passed before it started deciding, so a late owner never counts a batch its caller already
   * re-sent, and an overloaded owner sheds stale work cheaply instead of deciding it twice.
   */
  private async sendBatch(
    subject: string,
    { partition, pending, batchId }: PartitionBatch,
    giveUpAt: number,
    headers?: MsgHdrs,
  ): Promise<void> {
    const requests = pending.map((item) => item.request);
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const timeout = Math.max(1, Math.min(this.requestTimeoutMs, giveUpAt - now));
      const payload = batchCodec.encode({
        requests,
        expiresAt: now + timeout,
        batchId,
        retryForMs: Math.max(0, giveUpAt - now),
      });
      try {
        const reply = batchReplyCodec.decode((await this.inbox.request(subject, payload, timeout, headers)).data);
        if ('verdicts' in reply) {
          if (reply.owner !== undefined) this.owners.set(partition, reply.owner);
          this.settle(pending, reply.verdicts);
          return;
        }
        if ('expired' in reply) break;
      } catch (error) {
        if (!isRetryable(error)) break;
      }
      if (Date.now() >= giveUpAt) break;
      await delay(Math.min(25 * 2 ** attempt, 50));
    }
    this.settle(pending);
  }

  private control(keyHash: string, message: ControlMessage): Promise<void> {
    const subject = partitionSubjects(this.prefix, partitionOf(keyHash, this.partitions)).control;
    return withProducerSpan(`${this.prefix} ${message.op}`, { 'messaging.destination.name': subject }, (headers) =>
      this.sendControl(subject, message, headers),
    );
  }

  private async sendControl(subject: string, message: ControlMessage, headers?: MsgHdrs): Promise<void> {
    const giveUpAt = Date.now() + this.retryBudgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = controlReplyCodec.decode(
          (await this.inbox.request(subject, controlCodec.encode(message), this.requestTimeoutMs, headers)).data,
        );
        if ('ok' in reply) return;
      } catch (error) {
        // Nobody owns the partition: the next owner loads the key fresh from MongoDB, so nothing is stale.
        if (error instanceof NoRespondersError) return;
        // A refund must not be applied twice: after a timeout it may already have been.
        if (message.op !== 'key_changed' || !isRetryable(error)) throw error;
      }
      if (Date.now() >= giveUpAt) throw new Error(`no acknowledgement from the owner of ${subject}`);
      await delay(Math.min(25 * 2 ** attempt, 50));
    }
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof NoRespondersError || error instanceof ReplyTimeoutError;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
