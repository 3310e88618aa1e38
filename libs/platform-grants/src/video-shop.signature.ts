import { createHmac } from 'node:crypto';

/**
 * The Shop Partner API signature (docs/providers.md, video-shop): every query parameter except `sign` and
 * `access_token`, sorted by name, concatenated as name+value; prefixed by the platform path; wrapped in the app
 * secret on both sides; lower-case hex HMAC-SHA256 keyed with the app secret. The grant signs only GETs, so no
 * body is part of it here.
 */
export function videoShopSign(
  appSecret: string,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
): string {
  const joined = params
    .filter(([name]) => name !== 'sign' && name !== 'access_token')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}${value}`)
    .join('');
  return createHmac('sha256', appSecret).update(`${appSecret}${path}${joined}${appSecret}`).digest('hex');
}
