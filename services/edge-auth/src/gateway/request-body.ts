import type { IncomingMessage } from 'node:http';
import { MAX_REQUEST_BODY_BYTES, validateBody, type EndpointSpec } from '@gateway/catalogue';
import type { GatewayErrorCode } from '@gateway/errors';

export type BodyOutcome =
  | { ok: true; body: Buffer | undefined }
  | {
      ok: false;
      code: Extract<GatewayErrorCode, 'payload_too_large' | 'unsupported_media_type' | 'invalid_request'>;
      detail: string;
    };

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads and checks the body of an allowed call before anything is decided or counted: JSON only, at most
 * MAX_REQUEST_BODY_BYTES, only where the endpoint takes a body, of the endpoint's schema. The bytes are kept
 * as they came: a platform signature covers them.
 */
export async function readCheckedBody(req: IncomingMessage, endpoint: EndpointSpec): Promise<BodyOutcome> {
  if (!hasBody(req)) {
    return endpoint.body?.required
      ? { ok: false, code: 'invalid_request', detail: `${endpoint.path} needs a JSON body` }
      : { ok: true, body: undefined };
  }
  if (endpoint.body === undefined) {
    req.resume();
    return { ok: false, code: 'invalid_request', detail: `${endpoint.path} takes no body` };
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return { ok: false, code: 'unsupported_media_type', detail: 'send the body as Content-Type: application/json' };
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > MAX_REQUEST_BODY_BYTES) {
    req.resume();
    return tooLarge();
  }
  const bytes = await collect(req);
  if (bytes === undefined) return tooLarge();
  if (bytes.length === 0) return readCheckedBodyOf(endpoint, undefined);
  return readCheckedBodyOf(endpoint, bytes);
}

function readCheckedBodyOf(endpoint: EndpointSpec, bytes: Buffer | undefined): BodyOutcome {
  if (bytes === undefined) {
    return endpoint.body?.required
      ? { ok: false, code: 'invalid_request', detail: `${endpoint.path} needs a JSON body` }
      : { ok: true, body: undefined };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, code: 'invalid_request', detail: 'the body is not valid JSON' };
  }
  const problems = validateBody(endpoint, parsed);
  if (problems.length > 0) return { ok: false, code: 'invalid_request', detail: problems.slice(0, 10).join('; ') };
  return { ok: true, body: bytes };
}

function tooLarge(): BodyOutcome {
  return { ok: false, code: 'payload_too_large', detail: `the body may be at most ${MAX_REQUEST_BODY_BYTES} bytes` };
}

/** The whole body, or undefined as soon as it passes the limit (the rest is drained, not kept). */
function collect(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks, size)));
    req.on('error', () => resolve(undefined));
  });
}
