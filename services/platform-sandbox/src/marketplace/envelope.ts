import { randomBytes } from 'node:crypto';

/** The platform's error values; every error comes with HTTP 200 except an unknown path (404). */
export const MarketError = {
  AUTH: 'error_auth',
  SIGN: 'error_sign',
  PARAM: 'error_param',
  PERMISSION: 'error_api_permission',
  RATE_LIMIT: 'error_rate_limit',
  /** The daily call limit of an app for a shop is used up (docs/providers.md, marketplace errors). */
  CALL_LIMIT: 'error_limit',
  SERVER: 'error_server',
  NOT_FOUND: 'error_not_found',
} as const;
export type MarketErrorValue = (typeof MarketError)[keyof typeof MarketError];

export const MARKET_MESSAGES = {
  invalidAccessToken: 'Invalid access_token.',
  wrongSign: 'Wrong sign.',
  timestampExpired: 'Timestamp is expired.',
  noShopId: 'There is no shop_id in query.',
  noAccessToken: 'There is no access_token in query.',
  noPartnerId: 'There is no partner_id in query.',
  noTimestamp: 'There is no timestamp in query.',
  noSign: 'There is no sign in query.',
  invalidPartnerId: 'Invalid partner_id.',
  noPermission: 'This app type has no permission to this API.',
  rateLimit: 'Api access too frequent.',
  // Our wording: the platform documents the value (error_limit, the daily call limit), not its message.
  callLimit: 'The daily call limit of this app for this shop is reached.',
  server: 'Internal server error, please retry later.',
  invalidCode: 'Invalid code.',
  invalidRefreshToken: 'Invalid refresh_token.',
} as const;

/**
 * What a handler answers. `response` goes under the `response` key (an object, or an array for the ads
 * performance calls); `topLevel` fields sit beside request_id and error (shop/get_shop_info, token paths).
 */
export type MarketResult =
  | { kind: 'ok'; response?: unknown; topLevel?: Record<string, unknown>; warning?: string }
  | { kind: 'error'; status: number; error: MarketErrorValue; message: string };

export function ok(response: unknown, warning?: string): MarketResult {
  return warning === undefined ? { kind: 'ok', response } : { kind: 'ok', response, warning };
}

export function topLevel(fields: Record<string, unknown>): MarketResult {
  return { kind: 'ok', topLevel: fields };
}

export function marketError(error: MarketErrorValue, message: string, status = 200): MarketResult {
  return { kind: 'error', status, error, message };
}

export function paramError(message: string): MarketResult {
  return marketError(MarketError.PARAM, message);
}

/** 32 lowercase hex characters, as the platform's request_id. */
export function newRequestId(): string {
  return randomBytes(16).toString('hex');
}

export function envelope(result: MarketResult, requestId: string): { status: number; payload: object } {
  if (result.kind === 'error') {
    return { status: result.status, payload: { request_id: requestId, error: result.error, message: result.message } };
  }
  const payload: Record<string, unknown> = { request_id: requestId, error: '', message: '' };
  if (result.warning !== undefined) payload.warning = result.warning;
  if (result.topLevel) Object.assign(payload, result.topLevel);
  if (result.response !== undefined) payload.response = result.response;
  return { status: 200, payload };
}
