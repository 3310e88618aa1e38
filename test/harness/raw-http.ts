import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json<T = unknown>(): T;
}

/**
 * Sends one HTTP/1.1 request with the request target written byte for byte (fetch and http.request normalise
 * or refuse disguised paths, which is exactly what the gateway must see unmodified).
 */
export function rawRequest(
  baseUrl: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = options.body ?? '';
  const headerLines = Object.entries({
    Host: url.host,
    Connection: 'close',
    ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
    ...options.headers,
  }).map(([name, value]) => `${name}: ${value}`);
  const head = `${options.method ?? 'GET'} ${target} HTTP/1.1\r\n${headerLines.join('\r\n')}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () =>
      socket.destroy(new Error(`no answer for ${options.method ?? 'GET'} ${target.slice(0, 80)}`)),
    );
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]));
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`malformed HTTP response: ${raw.toString('latin1').slice(0, 200)}`);
  const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let payload = raw.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') payload = dechunk(payload);
  if (headers['content-encoding'] === 'gzip') payload = gunzipSync(payload);
  const body = payload.toString('utf8');
  return { status, headers, body, json: <T>() => JSON.parse(body) as T };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
