import type { GatewayErrorCode } from '@gateway/errors';

/** The gateway error codes a proxy answer can carry in `Failure.code` (the table lives in @gateway/errors). */
export type ProxyFailureCode = Extract<
  GatewayErrorCode,
  | 'path_not_allowed'
  | 'invalid_request'
  | 'payload_too_large'
  | 'connection_unavailable'
  | 'connection_needs_regrant'
  | 'platform_unreachable'
  | 'platform_connection_lost'
  | 'platform_timeout'
  | 'platform_answer_too_large'
  | 'platform_busy'
  | 'service_unavailable'
  | 'internal_error'
>;

/**
 * Why no platform answer could be obtained. `detail` is read by the caller: it names the provider, the
 * endpoint path and an error code at most, never a URL, a query string, a token or the app secret.
 */
export interface ProxyFailure {
  code: ProxyFailureCode;
  detail: string;
}

export function failure(code: ProxyFailureCode, detail: string): ProxyFailure {
  return { code, detail };
}
