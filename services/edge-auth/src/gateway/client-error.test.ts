import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientError } from './client-error';

/** Writes `head` (and, when trickling, one more header line every 50 ms) and resolves with all the server sent. */
function exchange(port: number, head: string, trickle: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let received = '';
    const timer = trickle ? setInterval(() => socket.write('X-Slow: 1\r\n'), 50) : undefined;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(received);
    });
  });
}

describe('edge - answers to requests Node refuses', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // A short header timeout, checked often, stands in for the 60 s checked every 30 s of the real server.
    server = createServer({ connectionsCheckingInterval: 50 }, (_req, res) => res.end('ok'));
    server.headersTimeout = 300;
    server.requestTimeout = 1_000;
    server.on('clientError', answerClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 408 to a client that trickles its headers past the header timeout (slowloris), not 400', async () => {
    const answer = await exchange(port, 'GET /v1/me HTTP/1.1\r\nHost: edge\r\n', true);

    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('still answers a malformed request with 400 problem+json', async () => {
    const answer = await exchange(port, 'GET /v1/me HTTP/1.1\r\nHost edge\r\n\r\n', false);

    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"code":"invalid_request"');
  });
});
