import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
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

  constructor(
    private readonly nc: NatsConnection,
    options: DecisionClientOptions = {},
  ) {
    this.partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.prefix = options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 1_000;
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

  private async send(partition: number, pending: Pending[], giveUpAt: number): Promise<void> {
    const subject = partitionSubjects(this.prefix, partition).decide;
    const payload = batchCodec.encode({ requests: pending.map((item) => item.request) });
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = batchReplyCodec.decode(
          (await this.nc.request(subject, payload, { timeout: this.requestTimeoutMs })).data,
        );
        if ('verdicts' in reply) {
          pending.forEach((item, index) => item.resolve(reply.verdicts[index] ?? UNAVAILABLE));
          return;
        }
      } catch (error) {
        if (!isRetryable(error)) {
          pending.forEach((item) => item.resolve(UNAVAILABLE));
          return;
        }
      }
      if (Date.now() >= giveUpAt) {
        pending.forEach((item) => item.resolve(UNAVAILABLE));
        return;
      }
      await delay(Math.min(25 * 2 ** attempt, 250));
    }
  }

  private async control(keyHash: string, message: ControlMessage): Promise<void> {
    const subject = partitionSubjects(this.prefix, partitionOf(keyHash, this.partitions)).control;
    const giveUpAt = Date.now() + this.retryBudgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = controlReplyCodec.decode(
          (await this.nc.request(subject, controlCodec.encode(message), { timeout: this.requestTimeoutMs })).data,
        );
        if ('ok' in reply) return;
      } catch (error) {
        // Nobody owns the partition: the next owner loads the key fresh from MongoDB, so nothing is stale.
        if ((error as NatsError).code === ErrorCode.NoResponders) return;
        if (!isRetryable(error)) throw error;
      }
      if (Date.now() >= giveUpAt) throw new Error(`no acknowledgement from the owner of ${subject}`);
      await delay(Math.min(25 * 2 ** attempt, 250));
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
