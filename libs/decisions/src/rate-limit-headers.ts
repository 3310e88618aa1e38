import type { QuotaState, RateState } from './verdict';

/**
 * RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-11, Structured Fields): one policy for
 * the rate (the key's bucket: q requests, refilled within w seconds) and one for the monthly quota, e.g.
 *   RateLimit-Policy: "rate";q=10;w=2, "monthly";q=10000;w=2592000
 *   RateLimit: "rate";r=9;t=1, "monthly";r=9990;t=735072
 */
export function rateLimitHeaders(rate: RateState | undefined, quota: QuotaState | undefined): Record<string, string> {
  const policies: string[] = [];
  const states: string[] = [];
  if (rate) {
    policies.push(`"rate";q=${rate.limit};w=${rate.windowSeconds}`);
    states.push(`"rate";r=${rate.remaining};t=${rate.resetSeconds}`);
  }
  if (quota) {
    policies.push(`"monthly";q=${quota.limit};w=${monthWindowSeconds()}`);
    states.push(`"monthly";r=${quota.remaining};t=${quota.resetSeconds}`);
  }
  if (policies.length === 0) return {};
  return { 'RateLimit-Policy': policies.join(', '), RateLimit: states.join(', ') };
}

let cachedMonth = '';
let cachedWindow = 0;

/** Length of the current calendar month (UTC) in seconds. */
function monthWindowSeconds(): number {
  const now = new Date();
  const month = `${now.getUTCFullYear()}-${now.getUTCMonth()}`;
  if (month !== cachedMonth) {
    cachedMonth = month;
    cachedWindow =
      (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) -
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) /
      1000;
  }
  return cachedWindow;
}
