import { monthWindowSeconds, rateLimitHeaders } from './rate-limit-headers';
import type { QuotaState } from './verdict';

describe('rateLimitHeaders', () => {
  const rate = { limit: 10, windowSeconds: 2, remaining: 9, resetSeconds: 1 };
  const quota: QuotaState = { limit: 10_000, used: 10, remaining: 9_990, resetSeconds: 735_072, overageMode: 'block' };

  it('writes the rate and the monthly quota as two policies, rate first', () => {
    const headers = rateLimitHeaders(rate, quota);
    expect(headers['RateLimit']).toBe('"rate";r=9;t=1, "monthly";r=9990;t=735072');
    expect(headers['RateLimit-Policy']).toMatch(
      /^"rate";q=10;w=2, "monthly";q=10000;w=(2419200|2505600|2592000|2678400)$/,
    );
  });

  it('writes either alone, and nothing without either', () => {
    expect(rateLimitHeaders(rate, undefined)).toEqual({
      'RateLimit-Policy': '"rate";q=10;w=2',
      RateLimit: '"rate";r=9;t=1',
    });
    expect(rateLimitHeaders(undefined, quota)['RateLimit']).toBe('"monthly";r=9990;t=735072');
    expect(rateLimitHeaders(undefined, undefined)).toEqual({});
  });
});

describe('monthWindowSeconds', () => {
  const day = 86_400;
  it.each([
    ['2026-02-14T12:00:00Z', 28 * day],
    ['2028-02-29T23:59:59.999Z', 29 * day],
    ['2026-03-01T00:00:00Z', 31 * day],
    ['2026-11-30T23:59:59Z', 30 * day],
    ['2026-12-31T23:59:59.999Z', 31 * day],
    ['2027-01-01T00:00:00Z', 31 * day],
    ['2026-02-01T00:00:00Z', 28 * day],
  ])('is the length of the UTC month of %s, in any order of calls', (iso, seconds) => {
    expect(monthWindowSeconds(Date.parse(iso))).toBe(seconds);
  });
});
