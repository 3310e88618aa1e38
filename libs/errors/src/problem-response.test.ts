import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_CATALOGUE, type GatewayErrorCode } from './codes';
import { problemDetails } from './problem';
import { sendProblem, sendProblemFields } from './problem-response';

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

  it('writes a flat list of fields with the problem in one go, a field set before kept unless named again', async () => {
    answer = (res) => {
      res.setHeader('X-Kept', 'before');
      res.setHeader('RateLimit', 'stale');
      sendProblemFields(res, 'rate_limited', 'req_2', ['X-Request-Id', 'req_2', 'RateLimit', '"rate";r=0;t=2'], {
        retryAfterSeconds: 2,
        detail: 'slow down',
      });
    };
    const response = await fetch(origin);
    expect(response.status).toBe(429);
    expect(await response.text()).toBe(JSON.stringify(problemDetails('rate_limited', 'req_2', 'slow down')));
    expect(response.headers.get('x-request-id')).toBe('req_2');
    expect(response.headers.get('ratelimit')).toBe('"rate";r=0;t=2');
    expect(response.headers.get('x-kept')).toBe('before');
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('escapes a request id that is not a plain token', async () => {
    answer = (res) => sendProblem(res, 'not_found', 'a"b\\c');
    const text = await (await fetch(origin)).text();
    expect(JSON.parse(text)).toEqual(problemDetails('not_found', 'a"b\\c'));
  });
});
