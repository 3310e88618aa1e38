import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The base string the platform signs. Shop calls: partner_id + path + timestamp + access_token + shop_id;
 * public calls (auth, partner level): partner_id + path + timestamp. The path is the platform path
 * (`/api/v2/...`), without the sandbox mount. The body is never signed.
 */
export function baseString(input: {
  partnerId: string;
  path: string;
  timestamp: string;
  accessToken?: string;
  shopId?: string;
}): string {
  const base = `${input.partnerId}${input.path}${input.timestamp}`;
  return input.accessToken === undefined ? base : `${base}${input.accessToken}${input.shopId ?? ''}`;
}

/** Lowercase hex HMAC-SHA256 of the base string, keyed with the partner key (its text, not its hex bytes). */
export function computeSign(partnerKey: string, base: string): string {
  return createHmac('sha256', partnerKey).update(base, 'utf8').digest('hex');
}

const SIGN_RE = /^[0-9a-f]{64}$/;

/** Constant-time comparison of the presented sign with ours. */
export function verifySign(partnerKey: string, base: string, presented: string): boolean {
  if (!SIGN_RE.test(presented)) return false;
  return timingSafeEqual(Buffer.from(computeSign(partnerKey, base), 'hex'), Buffer.from(presented, 'hex'));
}
