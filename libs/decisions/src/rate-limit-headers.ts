import type { QuotaState, RateState } from './verdict';

/**
 * RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-11, Structured Fields): one policy for
 * the rate (the key's bucket: q requests, refilled within w seconds) and one for the monthly quota, e.g.
 *   RateLimit-Policy: "rate";q=10;w=2, "monthly";q=10000;w=2592000
 *   RateLimit: "rate";r=9;t=1, "monthly";r=9990;t=735072
 * Rendered on every forwarded answer, so built as two strings without intermediate lists.
 */
export function rateLimitHeaders(rate: RateState | undefined, quota: QuotaState | undefined): Record<string, string> {
  if (rate && quota) {
    return {
      'RateLimit-Policy': `${ratePolicy(rate)}, ${monthlyPolicy(quota)}`,
      RateLimit: `${rateState(rate)}, ${monthlyState(quota)}`,
    };
  }
  if (rate) return { 'RateLimit-Policy': ratePolicy(rate), RateLimit: rateState(rate) };
  if (quota) return { 'RateLimit-Policy': monthlyPolicy(quota), RateLimit: monthlyState(quota) };
  return {};
}

const ratePolicy = (rate: RateState) => `"rate";q=${rate.limit};w=${rate.windowSeconds}`;
const rateState = (rate: RateState) => `"rate";r=${rate.remaining};t=${rate.resetSeconds}`;
const monthlyPolicy = (quota: QuotaState) => `"monthly";q=${quota.limit};w=${monthWindowSeconds(Date.now())}`;
const monthlyState = (quota: QuotaState) => `"monthly";r=${quota.remaining};t=${quota.resetSeconds}`;

let monthStart = 0;
let nextMonthStart = 0;

/** Length of the calendar month (UTC) of `now` in seconds; computed again only when a month boundary is crossed. */
export function monthWindowSeconds(now: number): number {
  if (now < monthStart || now >= nextMonthStart) {
    const date = new Date(now);
    monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    nextMonthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
  return (nextMonthStart - monthStart) / 1000;
}
