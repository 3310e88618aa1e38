import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies above this are refused; the real platform caps request bodies too, and the sandbox keeps memory flat. */
export const MAX_BODY_BYTES = 1_048_576;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the request body as UTF-8. GET requests without Content-Length or Transfer-Encoding carry no body,
 * so they skip the stream entirely: that is the benchmark's hot path.
 */
export function readBody(req: IncomingMessage): Promise<string> {
  const length = req.headers['content-length'];
  if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) {
    return Promise.resolve('');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers?: Record<string, string>,
): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
  });
  res.end(html);
}

export function sendRedirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, 'content-length': 0, 'cache-control': 'no-store' });
  res.end();
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

/** Splits `/path?query` without building a URL object (cheaper on the hot path). */
export function splitTarget(target: string): { path: string; query: string } {
  const mark = target.indexOf('?');
  return mark === -1 ? { path: target, query: '' } : { path: target.slice(0, mark), query: target.slice(mark + 1) };
}

/** A form or query string as a map; the last value wins (forms here never repeat names). */
export function parseForm(text: string): Map<string, string> {
  const form = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) form.set(name, value);
  return form;
}
