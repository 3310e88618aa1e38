const HOUR_MS = 3_600_000;

export interface HourlyVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
}

/**
 * The platform's request budget per API user and hour. A fixed window that starts with the user's first request
 * and lasts one hour (ours: the platform does not document how its hour is cut). A limit of 0 turns it off.
 */
export class UserHourLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  get enabled(): boolean {
    return this.limit > 0;
  }

  take(userKey: string): HourlyVerdict {
    if (this.limit === 0) return { allowed: true, limit: 0, remaining: 0 };
    const now = this.now();
    let window = this.windows.get(userKey);
    if (!window || now - window.start >= HOUR_MS) {
      window = { start: now, count: 0 };
      this.windows.set(userKey, window);
    }
    if (window.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0 };
    window.count += 1;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.count };
  }
}

/** The header the platform sends: `user-hour-lim:N;user-hour-rem:R;`. */
export function rateLimitHeader(verdict: HourlyVerdict): string {
  return `user-hour-lim:${verdict.limit};user-hour-rem:${verdict.remaining};`;
}
