import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request headers the SDK's transport reads; credentials and everything else stay out of its view. */
const FORWARDED = ['content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * The web Request the SDK's WebStandardStreamableHTTPServerTransport reads: the headers it looks at (the body is
 * passed already parsed), with Accept set to what the transport requires once the response mode is chosen.
 */
export function toWebRequest(req: IncomingMessage, url: string): Request {
  const headers = new Headers({ accept: 'application/json, text/event-stream' });
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(url, { method: 'POST', headers });
}

/** Writes the transport's web Response: JSON in one piece with its length, SSE streamed as it comes. */
export async function writeWebResponse(
  response: Response,
  res: ServerResponse,
  extraHeaders: Record<string, string>,
): Promise<void> {
  const headers: Record<string, string> = { ...extraHeaders };
  response.headers.forEach((value, name) => {
    // Connection management is Node's: a copied "Connection: keep-alive" would override a client's "close".
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  }
  res.end();
}
