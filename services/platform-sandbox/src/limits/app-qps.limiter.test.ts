import { AppQpsLimiter } from './app-qps.limiter';

describe('app QPS limiter', () => {
  it('admits the limit within any one-second window, per app', () => {
    let now = 10_000;
    const limiter = new AppQpsLimiter(2, () => now);
    expect([limiter.tryAcquire('a'), limiter.tryAcquire('a'), limiter.tryAcquire('a')]).toEqual([true, true, false]);
    expect(limiter.tryAcquire('b')).toBe(true);
    now += 999;
    expect(limiter.tryAcquire('a')).toBe(false);
    now += 1;
    expect(limiter.tryAcquire('a')).toBe(true);
  });

  it('is a sliding window, not a fixed one', () => {
    let now = 0;
    const limiter = new AppQpsLimiter(2, () => now);
    limiter.tryAcquire('a');
    now = 900;
    limiter.tryAcquire('a');
    now = 1000;
    expect(limiter.tryAcquire('a')).toBe(true);
    expect(limiter.tryAcquire('a')).toBe(false);
  });

  it('never limits with a limit of 0', () => {
    const limiter = new AppQpsLimiter(0, () => 0);
    for (let i = 0; i < 1000; i++) expect(limiter.tryAcquire('a')).toBe(true);
  });
});
