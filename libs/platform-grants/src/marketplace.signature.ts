import { createHmac } from 'node:crypto';

/**
 * The Open Platform v2 signature (docs/providers.md, marketplace): lower-case hex HMAC-SHA256 keyed with the
 * app's partner key over `partner_id + path + timestamp`, followed by `access_token + shop_id` for shop calls.
 * The grant makes public calls (the authorization page, the code exchange); provider-proxy signs shop calls and
 * token refreshes with it too.
 */
export function marketplaceSign(
  partnerKey: string,
  partnerId: string,
  path: string,
  timestamp: number,
  shop?: { accessToken: string; shopId: string },
): string {
  const base = `${partnerId}${path}${timestamp}${shop ? `${shop.accessToken}${shop.shopId}` : ''}`;
  return createHmac('sha256', partnerKey).update(base).digest('hex');
}
