import type { CancelSignal } from '../proxy/cancellation';

export interface QpsGuardOptions {
  /** Requests per second; 0 turns the guard off. */
  qps: number;
  /** Requests that may go back to back after an idle period (bucket size); 1 spaces every request by 1/qps. */
  burst: number;
  /** Requests that may wait at once; one more is refused at once. */
  maxQueue: number;
  /** Longest wait the guard ever accepts, whatever the caller's deadline. */
  maxWaitMs: number;
  /**
   * Spreads `qps` requests over 1000 + this many ms, so network jitter between requests spaced 1/qps apart
   * cannot put qps + 1 of them into the platform's sliding one-second window. Default 0.
   */
  windowMarginMs?: number;
  now?: () => number;
}

export type Admission = { ok: true; waitedMs: number } | { ok: false; reason: 'busy' | 'aborted' };

interface Waiter {
  enqueuedAt: number;
  resolve: (admission: Admission) => void;
  signal: CancelSignal | undefined;
  onAbort: () => void;
}

// Refill arithmetic is in floating point; a bucket this close to one token counts as one.
const EPSILON = 1e-9;

const LET_GO: Admission = Object.freeze({ ok: true, waitedMs: 0 });
const BUSY: Admission = Object.freeze({ ok: false, reason: 'busy' });
const ABORTED: Admission = Object.freeze({ ok: false, reason: 'aborted' });

/**
 * Per-app rate guard in front of a platform (docs/architecture.md: per-app QPS guard), so our own traffic
 * never earns the app a 40100 "App reaches the QPS limit." that would hit every customer at once.
 *
 * A token bucket (rate `qps`, size `burst`) computed on the moments requests are actually let go, with a
 * FIFO queue drained by one timer. Because the bucket only refills up to its size, a timer that fires late
 * (a busy event loop) never lets the next request follow sooner: with burst 1, any two requests are at least
 * 1/qps apart in real time, so any one-second window, fixed or sliding, sees at most `qps`. A request whose
 * expected wait exceeds its deadline or `maxWaitMs`, or that finds `maxQueue` waiting, is refused at once.
 */
export class QpsGuard {
  private readonly intervalMs: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly queue: Waiter[] = [];
  private tokens: number;
  private refilledAt: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: QpsGuardOptions) {
    this.intervalMs = options.qps > 0 ? (1000 + (options.windowMarginMs ?? 0)) / options.qps : 0;
    this.burst = Math.max(1, options.burst);
    this.now = options.now ?? Date.now;
    this.tokens = this.burst;
    this.refilledAt = this.now();
  }

  get enabled(): boolean {
    return this.intervalMs > 0;
  }

  /** Requests currently waiting for their turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Whether the request may go, never rejecting; `deadline` is an epoch-ms instant. Answered at once when known now
   * (let go, busy, aborted): the common case, a token at hand, then costs the caller no turn of the microtask queue.
   * A promise only when the request must wait its turn.
   */
  admit(deadline: number, signal?: CancelSignal): Admission | Promise<Admission> {
    if (!this.enabled) return LET_GO;
    if (signal?.aborted) return ABORTED;
    const now = this.now();
    this.refill(now);
    if (this.queue.length === 0 && this.tokens >= 1 - EPSILON) {
      this.tokens -= 1;
      return LET_GO;
    }
    // Everyone queued, then this request, each needs one token.
    const expectedWaitMs = Math.ceil((this.queue.length + 1 - this.tokens) * this.intervalMs - EPSILON);
    if (
      this.queue.length >= this.options.maxQueue ||
      expectedWaitMs > Math.min(this.options.maxWaitMs, deadline - now)
    ) {
      return BUSY;
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        enqueuedAt: now,
        resolve,
        signal,
        onAbort: () => {
          const index = this.queue.indexOf(waiter);
          if (index !== -1) this.queue.splice(index, 1);
          resolve(ABORTED);
          if (this.queue.length === 0) this.stopTimer();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      this.schedule();
    });
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) / this.intervalMs);
    this.refilledAt = now;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.queue.length === 0) return;
    const delayMs = Math.max(1, Math.ceil((1 - this.tokens) * this.intervalMs - EPSILON));
    this.timer = setTimeout(() => this.drain(), delayMs);
  }

  private drain(): void {
    this.timer = undefined;
    const now = this.now();
    this.refill(now);
    while (this.queue.length > 0 && this.tokens >= 1 - EPSILON) {
      const waiter = this.queue.shift()!;
      this.tokens -= 1;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve({ ok: true, waitedMs: now - waiter.enqueuedAt });
    }
    this.schedule();
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
