import { EarliestDeadline, expireDueIn, IdTable, IndexIds } from '@gateway/collections';
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from 'nats';

/** No subscriber listens on the subject (the server answered 503 at once). */
export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no responders on ${subject}`);
    this.name = 'NoRespondersError';
  }
}

/** No reply within the request's timeout. */
export class ReplyTimeoutError extends Error {
  constructor(readonly subject: string) {
    super(`no reply on ${subject} in time`);
    this.name = 'ReplyTimeoutError';
  }
}

interface PendingReply {
  subject: string;
  deadline: number;
  resolve: (msg: Msg) => void;
  reject: (error: Error) => void;
}

/**
 * Request/reply over one wildcard inbox subscription, for the decision hot path. The nats client's own `request`
 * builds an error object (a stack capture) per request even when it succeeds, and arms a timer and a promise race per
 * request; here a request costs one publish and one map entry. One timer is armed for the earliest deadline and is not
 * touched when replies come, so it fires about once per timeout rather than once per request: on a mostly idle process
 * each wake-up costs more than the work it does.
 */
export class ReplyInbox {
  private readonly prefix: string;
  private readonly pending = new IdTable<PendingReply>();
  private readonly subscription: Subscription;
  private readonly deadlines = new EarliestDeadline((nowMs) => this.expire(nowMs));
  private readonly tokens = new IndexIds();

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${createInbox()}.`;
    this.subscription = nc.subscribe(`${this.prefix}*`, { callback: (_error, msg) => this.onReply(msg) });
  }

  /** Rejects with NoRespondersError or ReplyTimeoutError; never leaves a reply waiting past its timeout. */
  request(subject: string, payload: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    const token = this.tokens.take();
    return new Promise<Msg>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      this.pending.set(token, { subject, deadline, resolve, reject });
      this.deadlines.add(deadline);
      try {
        this.nc.publish(subject, payload, { reply: this.prefix + token, ...(headers ? { headers } : {}) });
      } catch (error) {
        this.pending.delete(token);
        reject(error as Error);
      }
    });
  }

  /** Fails every waiting request; later replies are dropped. */
  close(): void {
    this.subscription.unsubscribe();
    for (const waiting of this.pending.values()) waiting.reject(new ReplyTimeoutError(waiting.subject));
    this.pending.clear();
    this.deadlines.stop();
  }

  private onReply(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.pending.delete(token);
    if (!waiting) return; // timed out already
    if (msg.headers?.code === 503 && msg.data.length === 0) waiting.reject(new NoRespondersError(waiting.subject));
    else waiting.resolve(msg);
  }

  /** Fails the requests whose deadline passed; the earliest deadline still waiting, or Infinity. */
  private expire(nowMs: number): number {
    return expireDueIn(this.pending, nowMs, (token, waiting) => {
      this.pending.delete(token);
      waiting.reject(new ReplyTimeoutError(waiting.subject));
    });
  }
}
