const DAY_MS = 86_400_000;

/** One app's calls for one shop on the current day, as the control route lists them. */
export interface CallCount {
  partner_id: number;
  shop_id: number;
  calls: number;
}

/**
 * The platform's daily call limit (`error_limit`): each partner app may make `limit` shop calls per shop and day.
 * Our choices where the platform does not say: days are UTC days, a call counts once it is signed and its token is
 * valid for the shop (whatever its parameters), a refused call does not count, and 0 turns the limit off.
 */
export class MarketCallLimit {
  private limit: number;
  private day = -1;
  private readonly counts = new Map<string, CallCount>();

  constructor(
    private readonly configured: number,
    private readonly now: () => number,
  ) {
    this.limit = configured;
  }

  /** Counts the call and returns true, or false (not counted) when the app has used up the day's calls. */
  tryCall(partnerId: number, shopId: number): boolean {
    this.rollOver();
    if (this.limit === 0) return true;
    const key = `${partnerId}:${shopId}`;
    const count = this.counts.get(key) ?? { partner_id: partnerId, shop_id: shopId, calls: 0 };
    if (count.calls >= this.limit) return false;
    count.calls += 1;
    this.counts.set(key, count);
    return true;
  }

  /** Test/dev control: a new limit (undefined: the configured one); the day's counts start again from 0. */
  setLimit(limit: number | undefined): void {
    this.limit = limit ?? this.configured;
    this.counts.clear();
  }

  status(): { daily_limit: number; calls: CallCount[] } {
    this.rollOver();
    return { daily_limit: this.limit, calls: [...this.counts.values()].map((count) => ({ ...count })) };
  }

  private rollOver(): void {
    const day = Math.floor(this.now() / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.counts.clear();
    }
  }
}
