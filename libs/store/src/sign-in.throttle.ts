/**
 * Counts failed sign-ins per (email, client address) in a sliding window; at the limit further attempts are
 * refused without checking the password until the oldest failure leaves the window. A success clears the count.
 * In-process: with several portal replicas each one counts on its own (the limit multiplies by the replicas).
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfterSeconds(email: string, address: string): number {
    const times = this.live(this.keyOf(email, address));
    if (times.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((times[0]! + this.windowMs - this.now()) / 1000));
  }

  recordFailure(email: string, address: string): void {
    const key = this.keyOf(email, address);
    const times = this.live(key);
    times.push(this.now());
    this.failures.set(key, times);
    if (this.failures.size > 100_000) this.sweep();
  }

  recordSuccess(email: string, address: string): void {
    this.failures.delete(this.keyOf(email, address));
  }

  private keyOf(email: string, address: string): string {
    return `${email.trim().toLowerCase()}\u0000${address}`;
  }

  private live(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.failures.get(key) ?? []).filter((time) => time > cutoff);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  private sweep(): void {
    for (const key of [...this.failures.keys()]) this.live(key);
  }
}
