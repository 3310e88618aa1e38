import { RateLimiter } from './rate-limiter';

describe('rate limiter', () => {
  it('admits the burst at once and then exactly the rate', () => {
    const limiter = new RateLimiter(10, 5);
    let admitted = 0;
    // 20 s offered at 5x the rate, one attempt every 20 ms.
    for (let now = 0; now < 20_000; now += 20) if (limiter.take(now).allowed) admitted++;
    expect(admitted).toBeGreaterThanOrEqual(200);
    expect(admitted).toBeLessThanOrEqual(205);
  });

  it('says how long to wait when the bucket is empty', () => {
    const limiter = new RateLimiter(2, 1);
    expect(limiter.take(0).allowed).toBe(true);
    const refused = limiter.take(100);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeCloseTo(400);
    expect(limiter.take(500).allowed).toBe(true);
  });

  it('reports remaining units for the RateLimit header', () => {
    const limiter = new RateLimiter(100, 10);
    expect(limiter.take(0).state).toEqual({ limit: 10, windowSeconds: 1, remaining: 9, resetSeconds: 1 });
    for (let i = 0; i < 9; i++) limiter.take(0);
    expect(limiter.take(0)).toMatchObject({ allowed: false, state: { remaining: 0 } });
  });

  it('starts spent after its owner died, so the old and the new owner together admit no extra burst', () => {
    const handoverAt = 10_000;
    const limiter = new RateLimiter(10, 5, { spentAtMs: handoverAt });
    // Right at the handover nothing is left: the previous owner may have spent the burst.
    expect(limiter.take(handoverAt).allowed).toBe(false);
    // Then exactly the rate: one unit every 100 ms, the first one interval after the handover.
    let admitted = 0;
    for (let t = handoverAt; t < handoverAt + 1_000; t += 10) if (limiter.take(t).allowed) admitted++;
    expect(admitted).toBe(9);
    // Long after the previous owner stopped, the bucket refills as usual.
    const later = new RateLimiter(10, 5, { spentAtMs: handoverAt });
    let burst = 0;
    while (later.take(handoverAt + 60_000).allowed) burst++;
    expect(burst).toBe(5);
  });

  it('continues exactly where a clean handover left the bucket', () => {
    const before = new RateLimiter(10, 5);
    for (let i = 0; i < 5; i++) expect(before.take(1_000).allowed).toBe(true);
    const state = before.handoverState(1_000);
    expect(state).toBeDefined();
    const after = new RateLimiter(10, 5, { tatMs: state! });
    expect(after.take(1_000).allowed).toBe(false);
    expect(after.take(1_100).allowed).toBe(true);
    // A full bucket has nothing to hand over.
    expect(new RateLimiter(10, 5).handoverState(1_000)).toBeUndefined();
  });
});
