import type { RateState } from '@gateway/decisions';

export type RateLimiterStart = { tatMs: number } | { spentAtMs: number };

/**
 * GCRA (a token bucket kept as one timestamp): `rps` requests per second with a bucket of `burst` requests.
 * Over any window of T seconds a key is admitted at most burst + rps * T requests; that is the documented
 * limit the accuracy benchmark checks against.
 */
export class RateLimiter {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  /** Theoretical arrival time of the next request. */
  private tat = 0;

  /**
   * `start`: where a previous owner of the key's partition left the bucket. `tatMs` is its exact state, handed
   * over on a clean handover. `spentAtMs` is the last moment an owner that died may have decided, with a bucket
   * nobody can see: the bucket then starts as if that owner had spent the whole burst at that moment, so the two
   * owners together stay within burst + rps x T (a fresh bucket would admit one burst too many).
   */
  constructor(
    readonly rps: number,
    readonly burst: number,
    start?: RateLimiterStart,
  ) {
    this.intervalMs = 1000 / rps;
    this.toleranceMs = this.intervalMs * Math.max(1, burst);
    if (start && 'tatMs' in start) this.tat = start.tatMs;
    else if (start) this.tat = start.spentAtMs + this.toleranceMs;
  }

  /** The bucket's state for the next owner; undefined when it is full at `nowMs` (nothing to hand over). */
  handoverState(nowMs: number): number | undefined {
    return this.tat > nowMs ? this.tat : undefined;
  }

  /** Takes one unit if the bucket has one; always reports the state for the RateLimit header. */
  take(nowMs: number): { allowed: boolean; retryAfterMs: number; state: RateState } {
    const tat = Math.max(this.tat, nowMs);
    const next = tat + this.intervalMs;
    if (next - nowMs > this.toleranceMs) {
      const retryAfterMs = next - nowMs - this.toleranceMs;
      return { allowed: false, retryAfterMs, state: this.state(tat, nowMs) };
    }
    this.tat = next;
    return { allowed: true, retryAfterMs: 0, state: this.state(next, nowMs) };
  }

  /** The state without taking a unit (a request whose rate unit was already taken). */
  peek(nowMs: number): { allowed: true; retryAfterMs: 0; state: RateState } {
    return { allowed: true, retryAfterMs: 0, state: this.state(Math.max(this.tat, nowMs), nowMs) };
  }

  private state(tat: number, nowMs: number): RateState {
    const remaining = Math.max(0, Math.floor((this.toleranceMs - (tat - nowMs)) / this.intervalMs));
    return {
      limit: Math.max(1, this.burst),
      windowSeconds: Math.max(1, Math.ceil(this.toleranceMs / 1000)),
      remaining,
      resetSeconds: Math.max(0, Math.ceil((tat - nowMs) / 1000)),
    };
  }
}
