import { createHmac } from 'node:crypto';

/**
 * The Open Platform v2 signature (docs/providers.md, marketplace): lower-case hex HMAC-SHA256 keyed with the
 * partner key over partner_id + path + timestamp, followed by access_token + shop_id for shop calls. The body
 * is not signed.
 */
export function marketplaceSignature(
  partnerKey: string,
  base: { partnerId: string; path: string; timestamp: number; accessToken?: string; shopId?: string },
): string {
  return createHmac('sha256', partnerKey)
    .update(`${base.partnerId}${base.path}${base.timestamp}${base.accessToken ?? ''}${base.shopId ?? ''}`)
    .digest('hex');
}
