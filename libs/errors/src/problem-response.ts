import type { ServerResponse } from 'node:http';
import { ERROR_CATALOGUE, type GatewayErrorCode } from './codes';
import { PROBLEM_CONTENT_TYPE } from './problem';

export interface ProblemOptions {
  detail?: string;
  retryAfterSeconds?: number;
}

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
  options: ProblemOptions & { headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = problemBody(code, requestId, options.detail);
  const headers = options.headers;
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'no-store');
  if (options.retryAfterSeconds !== undefined) res.setHeader('Retry-After', options.retryAfterSeconds);
  res.statusCode = ERROR_CATALOGUE[code].status;
  res.end(body);
}

/**
 * sendProblem with the answer's fields as a flat list (name, value, name, value, ...): they and the problem's own go
 * to node in one writeHead. When no header was set before, node writes such a list as it is, without the per-field
 * work of setHeader (a lower-cased copy of the name and an entry per field); fields set before are kept unless the
 * list names them again. The refusal the edge repeats itself is answered this way.
 */
export function sendProblemFields(
  res: ServerResponse,
  code: GatewayErrorCode,
  requestId: string,
  fields: readonly string[],
  options: ProblemOptions = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = problemBody(code, requestId, options.detail);
  const all = [
    ...fields,
    'Content-Type',
    PROBLEM_CONTENT_TYPE,
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Cache-Control',
    'no-store',
  ];
  if (options.retryAfterSeconds !== undefined) all.push('Retry-After', String(options.retryAfterSeconds));
  res.writeHead(ERROR_CATALOGUE[code].status, all);
  res.end(body);
}

/** The parts of each code's body around its detail and request id, rendered once. */
interface BodyParts {
  /** `{"type":...,"title":...,"status":N` */
  head: string;
  /** `,"code":"...","request_id":` */
  tail: string;
}

const bodyParts = new Map<GatewayErrorCode, BodyParts>();

function partsOf(code: GatewayErrorCode): BodyParts {
  let parts = bodyParts.get(code);
  if (parts === undefined) {
    const entry = ERROR_CATALOGUE[code];
    parts = {
      head:
        `{"type":${JSON.stringify(`urn:gateway:error:${code}`)},"title":${JSON.stringify(entry.title)},` +
        `"status":${entry.status}`,
      tail: `,"code":${JSON.stringify(code)},"request_id":`,
    };
    bodyParts.set(code, parts);
  }
  return parts;
}

/** A request id needs no JSON escaping when it is a plain token (requestIdOf keeps or makes only such ids). */
const PLAIN_TOKEN = /^[A-Za-z0-9._:-]*$/;

/** The bytes of JSON.stringify(problemDetails(code, requestId, detail)). */
export function problemBody(code: GatewayErrorCode, requestId: string, detail?: string): string {
  const parts = partsOf(code);
  const detailMember = detail === undefined ? '' : `,"detail":${JSON.stringify(detail)}`;
  const id = PLAIN_TOKEN.test(requestId) ? `"${requestId}"` : JSON.stringify(requestId);
  return `${parts.head}${detailMember}${parts.tail}${id}}`;
}
