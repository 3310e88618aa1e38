import { createHmac } from 'node:crypto';

/**
 * The Shop Partner API signature (docs/providers.md, video-shop): every query parameter except `sign` and
 * `access_token`, sorted by name, concatenated as name+value with values decoded; prefixed by the request
 * path; followed by the raw body bytes when there is a body; wrapped in the app secret on both sides;
 * lower-case hex HMAC-SHA256 keyed with the app secret.
 */
export function videoShopSignature(
  appSecret: string,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
  body?: Buffer,
): string {
  const parts = params
    .filter(([name]) => name !== 'sign' && name !== 'access_token')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}${value}`);
  const hmac = createHmac('sha256', appSecret);
  hmac.update(appSecret);
  hmac.update(path);
  hmac.update(parts.join(''));
  if (body !== undefined && body.length > 0) hmac.update(body);
  hmac.update(appSecret);
  return hmac.digest('hex');
}

/** name/value pairs of a raw query string, decoded the way the platform reads them ("+" is a space). */
export function decodedPairs(query: string): Array<[string, string]> {
  return [...new URLSearchParams(query).entries()];
}
