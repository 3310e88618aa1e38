import { isGatewayErrorCode, type GatewayErrorCode } from './codes';

/**
 * Failures after which the request certainly did not reach a platform, so its quota unit is given back
 * (issue: "every request forwarded to a platform counts one"; these were not forwarded). Shared by the REST
 * gateway and MCP call_endpoint so that both count the same way.
 */
const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'path_not_allowed',
  'connection_unavailable',
  'connection_needs_regrant',
  'platform_busy',
  'platform_unreachable',
  'invalid_request',
  'payload_too_large',
  'service_unavailable',
]);

export function wasNotForwarded(code: string): boolean {
  return NOT_FORWARDED.has(code);
}

export function toGatewayCode(code: string): GatewayErrorCode {
  return isGatewayErrorCode(code) ? code : 'internal_error';
}
