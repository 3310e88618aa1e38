import { randomBytes } from 'node:crypto';

/**
 * Codes the video-shop sandbox answers with. Unlike video-ads, this platform pairs every error code with a
 * real HTTP status; `data` is null on errors.
 */
export const ShopCode = {
  OK: 0,
  /** Ours: a query parameter or body field is missing or invalid (HTTP 400). */
  INVALID_PARAMS: 36009001,
  TOO_MANY_REQUESTS: 36009002,
  INTERNAL_ERROR: 36009003,
  /** Unknown app_key, timestamp outside the window, invalid/revoked token, shop_cipher misuse. */
  INVALID_CREDENTIALS: 36009004,
  /** Ours: no such API path (HTTP 404). */
  NOT_FOUND: 36009404,
  /** Ours: a known path called with another method (HTTP 405). */
  METHOD_NOT_ALLOWED: 36009405,
  EXPIRED_TOKEN: 105002,
  MISSING_SCOPE: 105005,
  INVALID_SIGN: 106001,
  MISSING_SHOP_CIPHER: 106013,
  /** Product search: paging past the first 10,000 results. */
  SEARCH_WINDOW_EXCEEDED: 12052180,
  /** Ours, auth host: a parameter is missing or grant_type is wrong (HTTP 400). */
  AUTH_INVALID_PARAMS: 36004001,
  /** Ours, auth host: app_key or app_secret is wrong (HTTP 401). */
  AUTH_INVALID_APP: 36004003,
  /** Ours, auth host: the auth_code or refresh_token is unknown, used, expired or revoked (HTTP 400). */
  AUTH_INVALID_GRANT: 36004004,
} as const;

export const SHOP_MESSAGES = {
  invalidSign: "Invalid credentials. The 'sign' query parameter is invalid.",
  invalidAppKey: "Invalid credentials. The 'app_key' query parameter is invalid.",
  staleTimestamp: "Invalid credentials. The 'timestamp' query parameter is missing or more than 30 seconds off.",
  invalidToken: "Invalid credentials. The 'x-tts-access-token' header is missing, invalid or revoked.",
  expiredToken: "Expired credentials. The 'x-tts-access-token' header has expired.",
  tooManyRequests: 'Too many requests.',
  internalError: 'Internal error. Please retry later.',
  missingShopCipher: "Missing required parameter. The 'shop_cipher' query parameter is required on this path.",
  invalidShopCipher: 'invalid shop_cipher: it does not belong to a shop of the authorized seller.',
  unexpectedShopCipher: "Invalid request. The 'shop_cipher' query parameter is not allowed on this path.",
  missingScope: (scope: string) => `Access denied. The app has not been granted the scope '${scope}'.`,
} as const;

export interface ShopResult {
  status: number;
  code: number;
  message: string;
  data: object | null;
}

export function ok(data: object): ShopResult {
  return { status: 200, code: ShopCode.OK, message: 'Success', data };
}

export function shopError(code: number, message: string, status: number): ShopResult {
  return { status, code, message, data: null };
}

export function paramError(message: string): ShopResult {
  return shopError(ShopCode.INVALID_PARAMS, message, 400);
}

/** request_id as the platform makes it: UTC yyyyMMddHHmmss followed by 18 uppercase hex characters. */
export function newRequestId(nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-T:]/g, '').slice(0, 14);
  return `${stamp}${randomBytes(9).toString('hex').toUpperCase()}`;
}

export function envelope(result: ShopResult, requestId: string): object {
  return { code: result.code, message: result.message, request_id: requestId, data: result.data };
}
