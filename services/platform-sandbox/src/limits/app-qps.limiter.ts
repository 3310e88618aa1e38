/**
 * Per-app request rate of the platform ("App reaches the QPS limit.", code 40100), as an exact sliding
 * one-second window: a ring of the last `limit` admitted times per app; a request is admitted when the
 * oldest of them is at least 1 s old. O(1) per request and no timers.
 */
export class AppQpsLimiter {
  private readonly windows = new Map<string, { times: Float64Array; next: number }>();

  /** @param limit requests per second per app; 0 means unlimited. */
  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  tryAcquire(appId: string): boolean {
    if (this.limit === 0) return true;
    let window = this.windows.get(appId);
    if (!window) {
      window = { times: new Float64Array(this.limit).fill(-Infinity), next: 0 };
      this.windows.set(appId, window);
    }
    const now = this.now();
    if (now - (window.times[window.next] as number) < 1000) return false;
    window.times[window.next] = now;
    window.next = (window.next + 1) % this.limit;
    return true;
  }
}
