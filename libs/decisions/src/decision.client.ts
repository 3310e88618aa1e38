import { randomBytes } from 'node:crypto';
import { withProducerSpan } from '@gateway/telemetry';
import { ErrorCode, type MsgHdrs, type NatsConnection, type NatsError } from 'nats';
import { batchCodec, batchReplyCodec, controlCodec, controlReplyCodec, type ControlMessage } from './codec';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX, partitionOf, partitionSubjects } from './partitions';
import type { DecisionRequest, Verdict } from './verdict';

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
}

interface Pending {
  request: DecisionRequest;
  resolve: (verdict: Verdict) => void;
}

const UNAVAILABLE: Verdict = { ok: false, code: 'service_unavailable', detail: 'no quota owner answered in time' };

/**
 * Asks the key's actor for verdicts. Requests made in the same event-loop turn are grouped per partition and
 * sent as one NATS request (PERFORMANCE.md: batching is worth 30-50x over one round trip per decision).
 * Never rejects: an unreachable owner yields a service_unavailable verdict.
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

  constructor(
    private readonly nc: NatsConnection,
    options: DecisionClientOptions = {},
  ) {
    this.partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.prefix = options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 750;
    this.retryBudgetMs = options.retryBudgetMs ?? 4_000;
  }

  decide(request: DecisionRequest): Promise<Verdict> {
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

  private flush(): void {
    this.flushScheduled = false;
    const batches = this.queued;
    this.queued = new Map();
    for (const [partition, pending] of batches) void this.send(partition, pending, Date.now() + this.retryBudgetMs);
  }

  /**
   * One NATS request per batch, traced as a PRODUCER span whose context travels in the message headers. The batch
   * runs in the context of the request that opened it; every decision also carries its own request's traceparent
   * (DecisionRequest.traceparent), which the actor's span of that decision takes as its parent.
   */
  private send(partition: number, pending: Pending[], giveUpAt: number): Promise<void> {
    const subject = partitionSubjects(this.prefix, partition).decide;
    return withProducerSpan(
      `${this.prefix} decide`,
      { 'messaging.destination.name': subject, 'messaging.batch.message_count': pending.length },
      (headers) => this.sendBatch(subject, pending, giveUpAt, headers),
    );
  }

  /**
   * Retries while the budget lasts when no owner answered: no responders, the owner refused the batch as not its
   * own, or a timeout (the owner died, or is overloaded). Every attempt carries its own deadline and an owner skips a
   * batch whose deadline passed before it started deciding, so a late owner never counts a batch its caller already
   * re-sent, and an overloaded owner sheds stale work cheaply instead of deciding it twice.
   */
  private async sendBatch(subject: string, pending: Pending[], giveUpAt: number, headers?: MsgHdrs): Promise<void> {
    const requests = pending.map((item) => item.request);
    const batchId = `${this.instanceId}.${(this.nextBatch++).toString(36)}`;
    for (let attempt = 0; ; attempt++) {
      const timeout = Math.max(1, Math.min(this.requestTimeoutMs, giveUpAt - Date.now()));
      const payload = batchCodec.encode({ requests, expiresAt: Date.now() + timeout, batchId });
      try {
        const reply = batchReplyCodec.decode(
          (await this.nc.request(subject, payload, { timeout, ...(headers ? { headers } : {}) })).data,
        );
        if ('verdicts' in reply) {
          pending.forEach((item, index) => item.resolve(reply.verdicts[index] ?? UNAVAILABLE));
          return;
        }
        if ('expired' in reply) break;
      } catch (error) {
        if (!isRetryable(error)) break;
      }
      if (Date.now() >= giveUpAt) break;
      await delay(Math.min(25 * 2 ** attempt, 100));
    }
    pending.forEach((item) => item.resolve(UNAVAILABLE));
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
          (
            await this.nc.request(subject, controlCodec.encode(message), {
              timeout: this.requestTimeoutMs,
              ...(headers ? { headers } : {}),
            })
          ).data,
        );
        if ('ok' in reply) return;
      } catch (error) {
        // Nobody owns the partition: the next owner loads the key fresh from MongoDB, so nothing is stale.
        if ((error as NatsError).code === ErrorCode.NoResponders) return;
        // A refund must not be applied twice: after a timeout it may already have been.
        if (message.op === 'refund' || !isRetryable(error)) throw error;
      }
      if (Date.now() >= giveUpAt) throw new Error(`no acknowledgement from the owner of ${subject}`);
      await delay(Math.min(25 * 2 ** attempt, 100));
    }
  }
}

function isRetryable(error: unknown): boolean {
  const code = (error as NatsError | undefined)?.code;
  return code === ErrorCode.NoResponders || code === ErrorCode.Timeout;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
