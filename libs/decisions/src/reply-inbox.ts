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

/** How often deadlines are checked while replies are awaited: the granularity of a timeout. */
const SWEEP_MS = 10;
/** Sweeps that found nothing waiting before the timer stops (re-armed by the next request). */
const IDLE_SWEEPS = 100;

/**
 * Request/reply over one wildcard inbox subscription, for the decision hot path. The nats client's own `request`
 * builds an error object (a stack capture) per request even when it succeeds, and arms a timer and a promise race per
 * request; here a request costs one publish and one map entry, and a single sweep timer runs while replies are due.
 */
export class ReplyInbox {
  private readonly prefix: string;
  private readonly pending = new Map<string, PendingReply>();
  private readonly subscription: Subscription;
  private sweepTimer: NodeJS.Timeout | undefined;
  private idleSweeps = 0;
  private nextToken = 0;

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${createInbox()}.`;
    this.subscription = nc.subscribe(`${this.prefix}*`, { callback: (_error, msg) => this.onReply(msg) });
  }

  /** Rejects with NoRespondersError or ReplyTimeoutError; never leaves a reply waiting past its timeout. */
  request(subject: string, payload: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    const token = (this.nextToken++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      this.pending.set(token, { subject, deadline: Date.now() + timeoutMs, resolve, reject });
      this.sweepTimer ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
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
    for (const [token, waiting] of this.pending) {
      this.pending.delete(token);
      waiting.reject(new ReplyTimeoutError(waiting.subject));
    }
    this.stopSweeping();
  }

  private onReply(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.pending.get(token);
    if (!waiting) return; // timed out already
    this.pending.delete(token);
    if (msg.headers?.code === 503 && msg.data.length === 0) waiting.reject(new NoRespondersError(waiting.subject));
    else waiting.resolve(msg);
  }

  private sweep(): void {
    // The timer keeps running through short lulls: re-arming it for every request would cost what it saves.
    if (this.pending.size === 0) {
      if (++this.idleSweeps >= IDLE_SWEEPS) this.stopSweeping();
      return;
    }
    this.idleSweeps = 0;
    const now = Date.now();
    for (const [token, waiting] of this.pending) {
      if (waiting.deadline > now) continue;
      this.pending.delete(token);
      waiting.reject(new ReplyTimeoutError(waiting.subject));
    }
  }

  private stopSweeping(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.idleSweeps = 0;
  }
}
