import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignInput {
  appSecret: string;
  /** The platform path, without any sandbox mount prefix: "/order/202309/orders/search". */
  path: string;
  /** Query parameters with their values percent-DECODED, as a client has them before encoding the URL. */
  params: Iterable<readonly [string, string]>;
  /** Raw body text; appended unless empty or multipart. */
  body?: string;
  contentType?: string;
}

/** Query parameters that are not part of the signed string. */
const UNSIGNED = new Set(['sign', 'access_token']);

/** The string the platform signs: path + sorted key/value pairs + body, wrapped in the secret on both sides. */
export function stringToSign(input: SignInput): string {
  const pairs = [...input.params].filter(([name]) => !UNSIGNED.has(name));
  // Plain code-unit order, like the platform's byte-wise sort of ASCII keys.
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let text = input.path;
  for (const [name, value] of pairs) text += name + value;
  const multipart = (input.contentType ?? '').toLowerCase().startsWith('multipart/form-data');
  if (input.body !== undefined && input.body !== '' && !multipart) text += input.body;
  return input.appSecret + text + input.appSecret;
}

/** Lowercase hex HMAC-SHA256 keyed with the app secret over `stringToSign`. */
export function computeSign(input: SignInput): string {
  return createHmac('sha256', input.appSecret).update(stringToSign(input), 'utf8').digest('hex');
}

const SIGN_RE = /^[0-9a-f]{64}$/;

/** Constant-time comparison of the presented signature (lowercase hex, as the platform makes it) with ours. */
export function verifySign(input: SignInput, presented: string): boolean {
  if (!SIGN_RE.test(presented)) return false;
  return timingSafeEqual(Buffer.from(computeSign(input), 'hex'), Buffer.from(presented, 'hex'));
}
