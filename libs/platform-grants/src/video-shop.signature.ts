import { createHmac } from 'node:crypto';

/**
 * The Shop Partner API signature (docs/providers.md, video-shop): every query parameter except `sign` and
 * `access_token`, sorted by name, concatenated as name+value; prefixed by the platform path; wrapped in the app
 * secret on both sides; lower-case hex HMAC-SHA256 keyed with the app secret; the raw body bytes, when there
 * is a body, go between the parameters and the closing secret. provider-proxy signs every call with it too.
 */
export function videoShopSign(
  appSecret: string,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
  body?: Buffer,
): string {
  const joined = params
    .filter(([name]) => name !== 'sign' && name !== 'access_token')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}${value}`)
    .join('');
  const hmac = createHmac('sha256', appSecret).update(`${appSecret}${path}${joined}`);
  if (body !== undefined && body.length > 0) hmac.update(body);
  return hmac.update(appSecret).digest('hex');
}
