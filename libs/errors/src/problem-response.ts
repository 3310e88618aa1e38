import type { ServerResponse } from 'node:http';
import { ERROR_CATALOGUE, type GatewayErrorCode } from './codes';
import { PROBLEM_CONTENT_TYPE } from './problem';

/**
 * Writes the gateway's own error as problem+json (RFC 9457) with `code` and `request_id`: the bytes of
 * JSON.stringify(problemDetails(code, requestId, detail)), built as one string, and headers set one by one. It is the
 * whole refusal path at the edge; building the object and handing writeHead a merged header object cost about a
 * third of a refusal's CPU (docs/benchmarks.md).
 */
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
  const entry = ERROR_CATALOGUE[code];
  const detail = options.detail === undefined ? '' : `,"detail":${JSON.stringify(options.detail)}`;
  const body =
    `{"type":${JSON.stringify(`urn:gateway:error:${code}`)},"title":${JSON.stringify(entry.title)},` +
    `"status":${entry.status}${detail},"code":${JSON.stringify(code)},"request_id":${JSON.stringify(requestId)}}`;
  const headers = options.headers;
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'no-store');
  if (options.retryAfterSeconds !== undefined) res.setHeader('Retry-After', options.retryAfterSeconds);
  res.statusCode = entry.status;
  res.end(body);
}
