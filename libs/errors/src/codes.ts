/**
 * Every error the gateway itself answers with, and its HTTP status. One table, applied in one place.
 * The first block is spec section 7; the rest are ours (spec 7 leaves the missing-key status open).
 */
export const ERROR_CATALOGUE = {
  // spec section 7
  missing_account_id: { status: 400, title: 'X-Account-Id is required when the key has several connections' },
  account_not_allowed: { status: 403, title: 'The account is not a connection of this key' },
  ip_not_allowed: { status: 403, title: 'The caller address is outside the key IP allowlist' },
  provider_not_in_plan: { status: 403, title: 'The provider is not in this key providers' },
  path_not_allowed: { status: 403, title: 'The path is not on the allowlist' },
  // ours: authentication
  missing_api_key: { status: 401, title: 'The X-API-Key header is missing' },
  invalid_api_key: { status: 401, title: 'The API key is malformed or unknown' },
  key_revoked: { status: 401, title: 'The API key was revoked or rotated' },
  // ours: MCP bearer authentication (spec 4.3: a request without a token gets 401; spec 5.3)
  missing_token: { status: 401, title: 'The request carries no bearer token' },
  invalid_token: { status: 401, title: 'The bearer token is malformed, unknown or expired' },
  // ours: limits
  rate_limited: { status: 429, title: 'The key exceeded its request rate' },
  quota_exceeded: { status: 429, title: 'The key used up its monthly quota' },
  // ours: routing and platform
  unknown_provider: { status: 404, title: 'There is no such provider' },
  not_found: { status: 404, title: 'There is no such resource' },
  invalid_request: { status: 400, title: 'The request is malformed' },
  payload_too_large: { status: 413, title: 'The request body is larger than the gateway takes' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  headers_too_large: { status: 431, title: 'The request headers are too large' },
  platform_unreachable: { status: 502, title: 'The platform could not be reached' },
  platform_connection_lost: {
    status: 502,
    title: 'The connection to the platform broke before its answer was complete; the request may have reached it',
  },
  platform_timeout: { status: 504, title: 'The platform did not answer in time' },
  platform_answer_too_large: { status: 502, title: 'The platform answer is larger than the gateway passes on' },
  connection_unavailable: { status: 502, title: 'The connection has no usable platform credentials' },
  connection_needs_regrant: {
    status: 409,
    title: 'The connection must be re-granted in the portal; its account id stays the same',
  },
  platform_busy: { status: 503, title: 'The platform app is at its request rate; retry shortly' },
  service_unavailable: { status: 503, title: 'The gateway is temporarily unable to decide on this request' },
  internal_error: { status: 500, title: 'Unexpected gateway error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type GatewayErrorCode = keyof typeof ERROR_CATALOGUE;

export function errorStatus(code: GatewayErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

export function isGatewayErrorCode(value: string): value is GatewayErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
