import { errorStatus, type GatewayErrorCode } from './codes';
import { PROBLEM_CONTENT_TYPE, problemDetails } from './problem';
import type { ServerResponse } from 'node:http';

/** Writes the gateway's own error as problem+json (RFC 9457) with `code` and `request_id`. */
export function sendProblem(
  res: ServerResponse,
  code: GatewayErrorCode,
  requestId: string,
  options: { detail?: string; retryAfterSeconds?: number; headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(problemDetails(code, requestId, options.detail));
  const headers: Record<string, string | number> = {
    ...options.headers,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  };
  if (options.retryAfterSeconds !== undefined) headers['Retry-After'] = options.retryAfterSeconds;
  res.writeHead(errorStatus(code), headers);
  res.end(body);
}
