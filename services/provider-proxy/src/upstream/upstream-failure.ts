import { failure, type ProxyFailure } from '../proxy/proxy-failure';

/** The reason an upstream call is aborted with when the request's own deadline passes. */
export class DeadlineExceededError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer head within ${timeoutMs} ms`);
    this.name = 'DeadlineExceededError';
  }
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);

/**
 * Errors of the connection phase: no byte of the request can have reached the platform (refused, DNS, unroutable,
 * TLS refused before any request). Only these give the quota unit back (docs/rest.md, "Limits").
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/**
 * Errors of a connection that broke during the exchange (reset, closed, cut short, malformed HTTP): the request may
 * have reached the platform, so it counts, as any forwarded request does.
 */
const CONNECTION_LOST_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_INFO',
]);

/** The error's `code`, looking through `cause` chains (undici wraps socket errors). */
export function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Maps an upstream call's error to a failure. Only the provider, the endpoint path and the error code reach
 * `detail`: undici and OS messages can contain the host, the full URL or its query (a caller's token or our
 * app secret), so they are never copied.
 */
export function upstreamFailure(error: unknown, provider: string, endpointPath: string): ProxyFailure {
  if (error instanceof DeadlineExceededError) {
    return failure('platform_timeout', `${provider} did not answer ${endpointPath} within ${error.timeoutMs} ms`);
  }
  const code = errorCodeOf(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return failure('platform_timeout', `${provider} did not answer ${endpointPath} in time (${code})`);
  }
  if (code !== undefined && (UNREACHABLE_CODES.has(code) || code.startsWith('ERR_SSL'))) {
    return failure('platform_unreachable', `${provider} could not be reached for ${endpointPath} (${code})`);
  }
  if (code !== undefined && (CONNECTION_LOST_CODES.has(code) || code.startsWith('HPE_'))) {
    return failure(
      'platform_connection_lost',
      `the connection to ${provider} broke during ${endpointPath} before a complete answer (${code})`,
    );
  }
  return failure('internal_error', `the call to ${provider} for ${endpointPath} failed unexpectedly`);
}
