import { request } from 'node:http';
import { startSandbox, type Harness } from '../testing/sandbox.harness';
import type { Fault } from './fault.table';

interface Exchange {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body: string;
  /** Set when the exchange broke: the socket was reset or ended before the announced length. */
  error?: string;
}

/** One HTTP exchange that reports a broken answer instead of throwing, with what had arrived by then. */
function exchange(url: string, init: { method?: string; body?: string; timeoutMs?: number } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = request(url, { method: init.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const done = (error?: string) =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ...(error ? { error } : {}),
        });
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done());
      res.on('aborted', () => done('aborted'));
      res.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    });
    if (init.timeoutMs !== undefined) req.setTimeout(init.timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ body: '', error: error.code ?? error.message }));
    req.end(init.body);
  });
}

describe('sandbox faults', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSandbox();
  });
  afterAll(() => h.close());
  afterEach(async () => {
    await fetch(`${h.url}/_sandbox/faults`, { method: 'DELETE' });
  });

  async function addFault(body: object): Promise<Fault> {
    const response = await fetch(`${h.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(201);
    return (await response.json()) as Fault;
  }

  async function listFaults(): Promise<Fault[]> {
    return ((await (await fetch(`${h.url}/_sandbox/faults`)).json()) as { faults: Fault[] }).faults;
  }

  const ADVERTISERS = '/open_api/v1.3/oauth2/advertiser/get/';

  describe('control routes', () => {
    it('adds a fault with its defaults, lists it with its hits, and removes it by id', async () => {
      const fault = await addFault({ kind: 'latency', module: 'video-ads' });
      expect(fault).toMatchObject({ kind: 'latency', module: 'video-ads', latency_ms: 5000, hits: 0, active: true });
      expect(fault.id).toMatch(/^flt_[0-9a-f]{16}$/);
      const huge = await addFault({ kind: 'huge', path_prefix: '/search-ads/', count: 2 });
      expect(huge).toMatchObject({ size_bytes: 52_428_800, count: 2, remaining: 2 });
      expect((await listFaults()).map((listed) => listed.id)).toEqual([fault.id, huge.id]);

      const removed = await fetch(`${h.url}/_sandbox/faults/${fault.id}`, { method: 'DELETE' });
      expect(removed.status).toBe(200);
      expect((await fetch(`${h.url}/_sandbox/faults/${fault.id}`, { method: 'DELETE' })).status).toBe(404);
      const cleared = await fetch(`${h.url}/_sandbox/faults`, { method: 'DELETE' });
      expect(await cleared.json()).toEqual({ cleared: 1 });
      expect(await listFaults()).toEqual([]);
    });

    it.each([
      ['an unknown kind', { kind: 'explode' }, /kind must be one of latency, hang/],
      ['no kind', {}, /kind must be one of/],
      ['an unknown field', { kind: 'hang', delay: 5 }, /Unrecognized key/],
      ['a field of another kind', { kind: 'reset', latency_ms: 100 }, /latency_ms/],
      ['count 0', { kind: 'reset', count: 0 }, /count/],
      ['a fractional latency', { kind: 'latency', latency_ms: 1.5 }, /latency_ms/],
      ['an unknown module', { kind: 'reset', module: 'video' }, /module/],
      ['a relative path_prefix', { kind: 'reset', path_prefix: 'open_api' }, /path_prefix must start with "\/"/],
      ['a tiny huge answer', { kind: 'huge', size_bytes: 10 }, /size_bytes/],
    ])('refuses %s with 400 and a message naming the problem', async (_name, body, message) => {
      const response = await fetch(`${h.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
      expect(await listFaults()).toEqual([]);
    });

    it('refuses a body that is not JSON', async () => {
      const response = await fetch(`${h.url}/_sandbox/faults`, { method: 'POST', body: '{kind:' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(/JSON object/);
    });
  });

  describe('matching', () => {
    it('hits count requests, then is spent but still listed with its hits', async () => {
      const fault = await addFault({ kind: 'status_500', count: 2 });
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(500);
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(500);
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(200);
      expect(await listFaults()).toEqual([
        expect.objectContaining({ id: fault.id, hits: 2, remaining: 0, active: false }),
      ]);
    });

    it('hits only its module and its path prefix', async () => {
      await addFault({ kind: 'status_500', module: 'search-ads' });
      await addFault({ kind: 'reset', path_prefix: '/marketplace/api/v2/order/' });
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(200);
      expect((await exchange(`${h.url}/search-ads/api/v5/campaigns`)).status).toBe(500);
      expect((await exchange(`${h.url}/marketplace/api/v2/shop/get_shop_info`)).status).toBe(200);
      expect((await exchange(`${h.url}/marketplace/api/v2/order/get_order_list`)).error).toBeDefined();
    });

    it('leaves the control routes and the grant and token endpoints alone unless its path_prefix names them', async () => {
      await addFault({ kind: 'status_500' });
      expect((await exchange(`${h.url}/_sandbox/requests`)).status).toBe(200);
      expect(
        (await fetch(`${h.url}/_sandbox/grants`, { method: 'POST', body: '{"bc_ids":["7182654093817356289"]}' }))
          .status,
      ).toBe(201);
      const token = await exchange(`${h.url}/open_api/v1.3/oauth2/access_token/`, { method: 'POST', body: '{}' });
      expect(token.status).toBe(200);
      expect((await exchange(`${h.url}/video-shop-auth/api/v2/token/get`)).status).not.toBe(500);
      expect(
        (await exchange(`${h.url}/marketplace/api/v2/auth/token/get`, { method: 'POST', body: '{}' })).status,
      ).not.toBe(500);
      expect(
        (await exchange(`${h.url}/search-ads-auth/auth/oauth2/token`, { method: 'POST', body: '' })).status,
      ).not.toBe(500);
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(500);

      await addFault({ kind: 'status_500', path_prefix: '/_sandbox/accounts' });
      expect((await exchange(`${h.url}/_sandbox/accounts`)).status).toBe(500);
      await addFault({ kind: 'status_500', path_prefix: '/marketplace/api/v2/auth' });
      expect(
        (await exchange(`${h.url}/marketplace/api/v2/auth/token/get`, { method: 'POST', body: '{}' })).status,
      ).toBe(500);
    });

    it('records faulted requests in the request log', async () => {
      await addFault({ kind: 'reset' });
      const before = ((await (await fetch(`${h.url}/_sandbox/requests`)).json()) as { last_seq: number }).last_seq;
      await exchange(`${h.url}/video-shop/authorization/202309/shops?x=1`);
      const log = (await (await fetch(`${h.url}/_sandbox/requests?since=${before}`)).json()) as {
        requests: { path: string; query: string }[];
      };
      expect(log.requests).toEqual([
        expect.objectContaining({ path: '/video-shop/authorization/202309/shops', query: 'x=1' }),
      ]);
    });
  });

  describe('kinds', () => {
    it('latency: answers normally after latency_ms', async () => {
      await addFault({ kind: 'latency', latency_ms: 300 });
      const started = Date.now();
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ code: expect.any(Number), request_id: expect.any(String) });
    });

    it('hang: never answers; the socket goes when the client gives up or the faults are cleared', async () => {
      await addFault({ kind: 'hang' });
      const started = Date.now();
      expect(await exchange(`${h.url}${ADVERTISERS}`, { timeoutMs: 300 })).toMatchObject({ error: 'client timeout' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);

      const pending = exchange(`${h.url}${ADVERTISERS}`);
      // Until the fault holds the second request: cleared any earlier, it would be answered normally.
      while ((await listFaults())[0]?.hits !== 2) await new Promise((resolve) => setImmediate(resolve));
      const clearedAt = Date.now();
      await fetch(`${h.url}/_sandbox/faults`, { method: 'DELETE' });
      const outcome = await pending;
      expect(outcome.status).toBeUndefined();
      expect(outcome.error).toBeDefined();
      expect(Date.now() - clearedAt).toBeLessThan(1000);
    });

    it('status_500: HTTP 500 with a plain body', async () => {
      await addFault({ kind: 'status_500' });
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(answer.status).toBe(500);
      expect(answer.headers?.['content-type']).toMatch(/^text\/plain/);
      expect(answer.body).toBe('Internal Server Error\n');
    });

    it.each([
      ['video-ads', ADVERTISERS, 200, { code: 40100, message: 'App reaches the QPS limit.', data: {} }],
      [
        'video-shop',
        '/video-shop/authorization/202309/shops',
        429,
        { code: 36009002, message: 'Too many requests.', data: null },
      ],
      [
        'marketplace',
        '/marketplace/api/v2/shop/get_shop_info',
        200,
        { error: 'error_rate_limit', message: 'Api access too frequent.' },
      ],
      [
        'search-ads',
        '/search-ads/api/v5/campaigns',
        429,
        {
          data: null,
          pagination: null,
          error: { errors: [expect.objectContaining({ messageCode: 'TOO_MANY_REQUESTS' })] },
        },
      ],
    ])('rate_limit: %s refuses with its own status and envelope', async (module, path, status, envelope) => {
      await addFault({ kind: 'rate_limit', module });
      const answer = await exchange(`${h.url}${path}`);
      expect(answer.status).toBe(status);
      expect(answer.headers?.['content-type']).toBe('application/json');
      expect(JSON.parse(answer.body)).toMatchObject(envelope);
      if (module === 'search-ads')
        expect(answer.headers?.['x-rate-limit']).toMatch(/^user-hour-lim:\d+;user-hour-rem:0;$/);
      if (module === 'video-ads' || module === 'video-shop') {
        expect((JSON.parse(answer.body) as { request_id: string }).request_id).toMatch(/^\d{14}/);
      }
    });

    it('malformed: 200 application/json with a body that is not JSON', async () => {
      await addFault({ kind: 'malformed' });
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(answer).toMatchObject({
        status: 200,
        headers: expect.objectContaining({ 'content-type': 'application/json' }),
      });
      expect(answer.error).toBeUndefined();
      expect(() => JSON.parse(answer.body)).toThrow();
    });

    it('truncated: announces more bytes than it sends, then ends the socket', async () => {
      await addFault({ kind: 'truncated' });
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(answer.status).toBe(200);
      expect(Number(answer.headers?.['content-length'])).toBeGreaterThan(Buffer.byteLength(answer.body));
      expect(answer.body.length).toBeGreaterThan(0);
      expect(answer.error).toBeDefined();
    });

    it('reset: destroys the socket without an answer', async () => {
      await addFault({ kind: 'reset' });
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(answer.status).toBeUndefined();
      expect(answer.error).toMatch(/ECONNRESET|socket hang up/);
    });

    it.each([64, 1_000, 1_048_576 + 7])('huge: exactly %d bytes of valid JSON', async (size) => {
      await addFault({ kind: 'huge', size_bytes: size, count: 1 });
      const answer = await exchange(`${h.url}${ADVERTISERS}`);
      expect(answer.status).toBe(200);
      expect(answer.headers?.['content-length']).toBe(String(size));
      expect(Buffer.byteLength(answer.body)).toBe(size);
      expect((JSON.parse(answer.body) as { data: { list: string[] } }).data.list.length).toBeGreaterThan(0);
    });

    it('huge: stops streaming when the client goes away', async () => {
      await addFault({ kind: 'huge', size_bytes: 200 * 1024 * 1024 });
      const received = await new Promise<number>((resolve) => {
        let bytes = 0;
        const req = request(`${h.url}${ADVERTISERS}`, { agent: false }, (res) => {
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > 1_000_000) req.destroy();
          });
          res.on('close', () => resolve(bytes));
        });
        req.on('error', () => undefined);
        req.end();
      });
      expect(received).toBeLessThan(200 * 1024 * 1024);
      // The sandbox still answers (its stream stopped instead of filling memory).
      await fetch(`${h.url}/_sandbox/faults`, { method: 'DELETE' });
      expect((await exchange(`${h.url}${ADVERTISERS}`)).status).toBe(200);
    });
  });
});

describe('sandbox faults in production mode', () => {
  it('do not exist', async () => {
    const h = await startSandbox({ NODE_ENV: 'production' });
    try {
      const response = await fetch(`${h.url}/_sandbox/faults`, { method: 'POST', body: '{"kind":"reset"}' });
      expect(response.status).toBe(404);
    } finally {
      await h.close();
    }
  });
});
