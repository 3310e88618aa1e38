import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_CATALOGUE, type GatewayErrorCode } from './codes';
import { problemDetails } from './problem';
import { sendProblem } from './problem-response';

describe('sendProblem', () => {
  let server: Server;
  let origin: string;
  let answer: (res: Parameters<typeof sendProblem>[0]) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('writes exactly the bytes of the problem object, for every code, with and without detail', async () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as GatewayErrorCode[]) {
      for (const detail of [undefined, 'a "quoted" detail\nwith a line break and ü']) {
        answer = (res) => sendProblem(res, code, 'req_0123', detail === undefined ? {} : { detail });
        const response = await fetch(origin);
        const text = await response.text();
        expect({ code, body: text }).toEqual({ code, body: JSON.stringify(problemDetails(code, 'req_0123', detail)) });
        expect(response.status).toBe(ERROR_CATALOGUE[code].status);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
        expect(response.headers.get('cache-control')).toBe('no-store');
      }
    }
  });

  it('adds the caller headers and Retry-After, keeping headers set before', async () => {
    answer = (res) => {
      res.setHeader('X-Request-Id', 'req_1');
      sendProblem(res, 'rate_limited', 'req_1', { retryAfterSeconds: 3, headers: { RateLimit: '"rate";r=0;t=3' } });
    };
    const response = await fetch(origin);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('ratelimit')).toBe('"rate";r=0;t=3');
    expect(response.headers.get('x-request-id')).toBe('req_1');
  });
});
