import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Cancellation } from '../proxy/cancellation';
import { AnswerDroppedError, READ_AHEAD_BYTES } from './answer-reader';
import { UndiciUpstreamClient, type UpstreamRequest, type UpstreamResponse } from './upstream.client';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

describe('UndiciUpstreamClient', () => {
  let server: Server;
  let origin: string;
  let route: Route;
  const sockets = new Set<Socket>();
  let client: UndiciUpstreamClient;

  beforeAll(async () => {
    server = createServer((request, response) => route(request, response));
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    client = new UndiciUpstreamClient({
      connections: 1,
      connectTimeoutMs: 2_000,
      keepAliveMs: 5_000,
      bodyTimeoutMs: 2_000,
    });
  });

  afterEach(async () => {
    await client.destroy();
    for (const socket of sockets) socket.destroy();
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string): UpstreamRequest => ({ method: 'GET', origin, pathAndQuery: path, headers: {} });
  const options = (signal = new Cancellation(), prefixBytes = 16 * 1024) => ({
    signal,
    headersTimeoutMs: 2_000,
    prefixBytes,
  });

  async function readAll(response: UpstreamResponse): Promise<Buffer> {
    const parts = [response.prefix];
    for (let chunk = await response.rest.read(); chunk !== undefined; chunk = await response.rest.read()) {
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  }

  it('resolves a small answer whole: status, headers (a repeated one by its first value) and the exact bytes', async () => {
    route = (request, response) => {
      response.setHeader('Content-Type', 'application/json; charset=utf-8');
      response.setHeader('X-Repeated', ['one', 'two']);
      response.end(`{"path":"${request.url}"}`);
    };
    const answer = await client.send(get('/small?q=1'), options());
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(true);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('x-repeated')).toBe('one');
    expect(answer.prefix.toString()).toBe('{"path":"/small?q=1"}');
    await expect(answer.rest.read()).resolves.toBeUndefined();
  });

  it('passes an answer with no body and a 1xx before the head through', async () => {
    route = (_request, response) => {
      response.writeEarlyHints({ link: '</a.css>; rel=preload' }, () => {
        response.writeHead(204).end();
      });
    };
    const answer = await client.send(get('/empty'), options());
    expect(answer.status).toBe(204);
    expect(answer.complete).toBe(true);
    expect(answer.prefix.length).toBe(0);
  });

  it('streams a large answer byte for byte, reading the platform no faster than the caller', async () => {
    // Far more than loopback socket buffers hold (a few MiB), so an unpaused reader would take it all at once.
    const size = 512 * READ_AHEAD_BYTES + 123;
    const payload = randomBytes(size);
    let written = 0;
    route = (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const pump = () => {
        while (written < size) {
          const piece = payload.subarray(written, Math.min(size, written + 16 * 1024));
          written += piece.length;
          if (!response.write(piece)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    };
    const answer = await client.send(get('/large'), options(new Cancellation(), 1024));
    expect(answer.complete).toBe(false);
    expect(answer.prefix.length).toBeGreaterThanOrEqual(1024);
    // An unread body stops the platform: the server cannot write it all into buffers that nobody empties.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written).toBeLessThan(size);
    expect((await readAll(answer)).equals(payload)).toBe(true);
  });

  it('rejects at once when the caller gives up while the call waits for a pooled connection', async () => {
    route = () => undefined; // never answers: the one connection stays busy
    const first = new Cancellation();
    const busy = client.send(get('/hang'), options(first));
    const queued = new Cancellation();
    const waiting = client.send(get('/queued'), options(queued));
    const reason = new Error('caller gone');
    queued.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    first.abort();
    await expect(busy).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects the head with the undici timeout error when the platform says nothing in time', async () => {
    route = () => undefined;
    await expect(client.send(get('/silent'), { ...options(), headersTimeoutMs: 100 })).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
  });

  it('rejects the next read when the caller gives up in the middle of the body, and closes that socket', async () => {
    let served: Socket | undefined;
    route = (request, response) => {
      served = request.socket;
      response.writeHead(200);
      response.write(Buffer.alloc(32 * 1024, 1));
    };
    const signal = new Cancellation();
    const answer = await client.send(get('/half'), options(signal, 1024));
    const reason = new Error('deadline');
    const next = answer.rest.read();
    signal.abort(reason);
    await expect(next).rejects.toBe(reason);
    await waitFor(() => served?.destroyed === true);
  });

  it('drops an answer left unread (destroy): its socket is closed, never reused for the next call', async () => {
    let dropped: Socket | undefined;
    route = (request, response) => {
      dropped = request.socket;
      response.writeHead(200);
      response.write(Buffer.alloc(64 * 1024, 2));
    };
    const answer = await client.send(get('/dropped'), options(new Cancellation(), 1024));
    answer.rest.destroy();
    await expect(answer.rest.read()).rejects.toBeInstanceOf(AnswerDroppedError);
    await waitFor(() => dropped?.destroyed === true);
    let nextSocket: Socket | undefined;
    route = (request, response) => {
      nextSocket = request.socket;
      response.end('fresh');
    };
    const next = await client.send(get('/next'), options());
    expect(next.prefix.toString()).toBe('fresh');
    expect(nextSocket).not.toBe(dropped);
  });

  it('rejects a read when the platform breaks the connection in the middle of the body', async () => {
    route = (_request, response) => {
      response.writeHead(200, { 'Content-Length': '100000' });
      response.write(Buffer.alloc(2048, 3), () => response.socket?.destroy());
    };
    const answer = await client.send(get('/cut'), options(new Cancellation(), 1024));
    await expect(readAll(answer)).rejects.toMatchObject({ code: expect.stringMatching(/^UND_ERR/) });
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  const until = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
