import { randomBytes } from 'node:crypto';
import { credentials, makeClientConstructor, type ServiceClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { ServerFrames__Output } from '@gateway/proto';
import {
  ExchangeClient,
  MemoryConnections,
  sendJson,
  startFakePlatform,
  startTestProxy,
  testConfig,
  type FakePlatform,
  type TestProxy,
} from '../proxy-harness.fixture';
import { MAX_CHUNK_BYTES } from './exchange.handler';
import { MAX_BATCH_BYTES } from './frame.writer';

const BIG_BODY = randomBytes(300 * 1024 + 123);
const HUGE_BYTES = 64 * 1024 * 1024;
const STREAM_BYTES = 32 * 1024 * 1024;
const WINDOW_BYTES = 256 * 1024;

describe('provider-proxy Exchange', () => {
  let platform: FakePlatform;
  let harness: TestProxy;
  const connections = new MemoryConnections();
  const accountId = connections.add('token-x');
  /** Bytes the platform managed to write of the endless body before the proxy stopped reading. */
  let hugeWritten = 0;
  /** Bytes the platform wrote of each `kind=stream` answer, by its `n`. */
  const streamed = new Map<string, number>();

  beforeAll(async () => {
    platform = await startFakePlatform((req, res) => {
      const query = new URLSearchParams(req.url?.split('?')[1] ?? '');
      const delay = Number(query.get('delay_ms') ?? 0);
      const kind = query.get('kind');
      setTimeout(() => {
        if (kind === 'big') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          return res.end(BIG_BODY);
        }
        if (kind === 'hang') return; // never answers
        if (kind === 'stream') {
          const n = query.get('n') ?? '';
          streamed.set(n, 0);
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          const pump = () => {
            while (streamed.get(n)! < STREAM_BYTES) {
              streamed.set(n, streamed.get(n)! + chunk.length);
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          return pump();
        }
        if (kind === 'huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          const pump = () => {
            while (hugeWritten < HUGE_BYTES) {
              hugeWritten += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          return pump();
        }
        sendJson(res, { code: 0, message: 'OK', data: { echo: query.get('n') } });
      }, delay);
    });
    // The backpressure test streams HUGE_BYTES: above the default answer bound (answer-size.error.test.ts).
    harness = await startTestProxy(
      testConfig(platform.baseUrl, { UPSTREAM_MAX_ANSWER_BYTES: 2 * HUGE_BYTES }),
      connections,
    );
  });

  afterAll(async () => {
    await harness.close();
    await platform.close();
  });

  const request = (id: string, query: string, timeout_ms = 5_000) => ({
    correlation_id: id,
    provider: 'video-ads',
    account_id: accountId,
    path: '/v1.3/campaign/get/',
    query,
    timeout_ms,
  });

  it('answers many requests in flight on one stream, each under its own correlation id', async () => {
    const exchange = new ExchangeClient(harness.client);
    // Later requests answer first (as many as the pool has connections), so answers come back reversed.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => exchange.send(request(`r${i}`, `n=${i}&delay_ms=${(8 - i) * 40}`))),
    );
    answers.forEach((answer, i) => {
      expect(answer.failure).toBeNull();
      expect(answer.head?.status).toBe(200);
      expect(JSON.parse(answer.body.toString()).data.echo).toBe(String(i));
      // A small answer travels as one whole frame.
      expect(answer.kinds).toEqual(['whole']);
    });
    const order = exchange.frames.filter((frame) => frame.kind === 'whole').map((frame) => frame.correlation_id);
    expect(order).toEqual(['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    exchange.stream.end();
  });

  it('splits a large body into chunks of at most 64 KiB that reassemble to the platform bytes', async () => {
    const exchange = new ExchangeClient(harness.client);
    const answer = await exchange.send(request('big', 'kind=big'));
    expect(answer.head?.content_type).toBe('application/octet-stream');
    expect(answer.chunks.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...answer.chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(answer.body.equals(BIG_BODY)).toBe(true);
    expect(answer.kinds[0]).toBe('head');
    expect(answer.kinds.at(-1)).toBe('end');
    exchange.stream.end();
  });

  it('answers a failure as an end frame without a head', async () => {
    const exchange = new ExchangeClient(harness.client);
    const answer = await exchange.send({ ...request('w', ''), path: '/v1.3/campaign/create/' });
    expect(answer.kinds).toEqual(['end']);
    expect(answer.failure?.code).toBe('path_not_allowed');
    exchange.stream.end();
  });

  it('applies each request its own deadline without disturbing the others', async () => {
    const exchange = new ExchangeClient(harness.client);
    const [slow, fast] = await Promise.all([
      exchange.send(request('slow', 'kind=hang', 200)),
      exchange.send(request('fast', 'n=1&delay_ms=400')),
    ]);
    expect(slow.failure?.code).toBe('platform_timeout');
    expect(fast.failure).toBeNull();
    exchange.stream.end();
  });

  it('aborts the platform call of a cancelled request and keeps the stream working', async () => {
    const exchange = new ExchangeClient(harness.client);
    const before = platform.requests.length;
    void exchange.send(request('c1', 'kind=hang'));
    await waitFor(() => platform.requests.length > before);
    exchange.cancel('c1');
    await platform.requests[before]!.aborted;
    const after = await exchange.send(request('c2', 'n=2'));
    expect(after.failure).toBeNull();
    expect(exchange.frames.some((frame) => frame.correlation_id === 'c1')).toBe(false);
    exchange.stream.end();
  });

  it('answers the requests of one ClientFrames message, rejecting a missing or duplicate correlation id together', async () => {
    const exchange = new ExchangeClient(harness.client);
    const answered = exchange.answer('d');
    exchange.write([
      { request: request('', 'n=0') },
      { request: request('d', 'n=1&delay_ms=50') },
      { request: request('d', 'n=2') },
    ]);
    expect((await answered).failure?.code).toBe('invalid_request');
    // Both rejections are written in the turn that read the batch, so they leave as one ServerFrames message.
    expect(exchange.messages[0]!.map((frame) => [frame.correlation_id, frame.end?.failure?.code])).toEqual([
      ['', 'invalid_request'],
      ['d', 'invalid_request'],
    ]);
    await waitFor(() => exchange.frames.some((frame) => frame.kind === 'whole'));
    const whole = exchange.frames.find((frame) => frame.kind === 'whole')!;
    expect(JSON.parse(whole.whole!.body.toString()).data.echo).toBe('1');
    exchange.stream.end();
  });

  it('aborts only the request a cancel inside a batch names and starts the other requests of the batch', async () => {
    const exchange = new ExchangeClient(harness.client);
    const before = platform.requests.length;
    exchange.write([{ request: request('x', 'kind=hang&n=x') }, { request: request('y', 'kind=hang&n=y') }]);
    await waitFor(() => platform.requests.length >= before + 2);
    const seen = (n: string) => platform.requests.slice(before).find((recorded) => recorded.url.includes(`n=${n}`))!;
    let yAborted = false;
    void seen('y').aborted.then(() => (yAborted = true));
    const z = exchange.answer('z');
    exchange.write([{ cancel: { correlation_id: 'x' } }, { request: request('z', 'n=z') }]);
    await seen('x').aborted;
    expect((await z).failure).toBeNull();
    expect(yAborted).toBe(false);
    exchange.cancel('y');
    await seen('y').aborted;
    expect(exchange.frames.some((frame) => frame.correlation_id === 'x' || frame.correlation_id === 'y')).toBe(false);
    exchange.stream.end();
  });

  it('streams a large answer in 64 KiB chunks next to small ones, no message over the batch byte cap', async () => {
    const exchange = new ExchangeClient(harness.client);
    const small = Array.from({ length: 4 }, (_, i) => exchange.answer(`s${i}`));
    const big = exchange.answer('big');
    exchange.write([
      { request: request('big', 'kind=big') },
      ...Array.from({ length: 4 }, (_, i) => ({ request: request(`s${i}`, `n=${i}`) })),
    ]);
    const answer = await big;
    for (const done of await Promise.all(small)) expect(done.failure).toBeNull();
    expect(answer.body.equals(BIG_BODY)).toBe(true);
    expect(Math.max(...answer.chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    const bodyBytes = (frames: typeof exchange.frames) =>
      frames.reduce((sum, frame) => sum + (frame.chunk?.length ?? frame.whole?.body.length ?? 0), 0);
    for (const frames of exchange.messages) {
      expect(bodyBytes(frames)).toBeLessThanOrEqual(MAX_BATCH_BYTES + MAX_CHUNK_BYTES);
    }
    exchange.stream.end();
  });

  it('aborts every platform call of a stream that breaks', async () => {
    const exchange = new ExchangeClient(harness.client);
    const before = platform.requests.length;
    for (let i = 0; i < 3; i++) void exchange.send(request(`b${i}`, 'kind=hang'));
    await waitFor(() => platform.requests.length >= before + 3);
    exchange.stream.cancel();
    await Promise.all(platform.requests.slice(before).map((seen) => seen.aborted));
  });

  it('reads the platform body no faster than the stream reader takes it', async () => {
    const exchange = new ExchangeClient(harness.client);
    exchange.stream.pause();
    const answer = exchange.send(request('huge', 'kind=huge'));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Socket and HTTP/2 buffers hold a few MiB at most; without back-pressure all 64 MiB would be read.
    expect(hugeWritten).toBeLessThan(24 * 1024 * 1024);
    exchange.stream.resume();
    const done = await answer;
    expect(done.body.length).toBe(HUGE_BYTES);
    exchange.stream.end();
  }, 30_000);

  it('sends its headers as soon as a stream opens, before any request is sent on it', async () => {
    const exchange = new ExchangeClient(harness.client);
    const ended = new Promise((resolve) => exchange.stream.on('status', resolve));

    await new Promise((resolve) => exchange.stream.once('metadata', resolve));

    expect(exchange.frames).toEqual([]);
    exchange.stream.end();
    expect(await ended).toMatchObject({ code: 0 });
  });

  /** Chunk bytes the stream has received for one request so far. */
  const chunkBytes = (exchange: ExchangeClient, id: string) =>
    exchange.frames.reduce((sum, f) => sum + (f.correlation_id === id && f.chunk ? f.chunk.length : 0), 0);

  it('sends no more of a body than the window the caller granted, and the rest as its credit comes', async () => {
    const exchange = new ExchangeClient(harness.client);
    const answer = exchange.send({ ...request('w1', 'kind=stream&n=w1'), window_bytes: WINDOW_BYTES });
    await waitFor(() => chunkBytes(exchange, 'w1') >= WINDOW_BYTES);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chunkBytes(exchange, 'w1')).toBe(WINDOW_BYTES);
    // The platform's body is not read meanwhile: only socket buffers' worth of it left the platform.
    expect(streamed.get('w1')).toBeLessThan(STREAM_BYTES / 2);

    // From now on every chunk is granted back as it arrives, as edge-auth does once its client took it.
    exchange.stream.on('data', (message: ServerFrames__Output) => {
      const taken = message.frames.filter((f) => f.correlation_id === 'w1' && f.chunk);
      for (const frame of taken) exchange.write([{ credit: { correlation_id: 'w1', bytes: frame.chunk!.length } }]);
    });
    exchange.write([{ credit: { correlation_id: 'w1', bytes: WINDOW_BYTES } }]);
    const done = await answer;

    expect(done.failure).toBeNull();
    expect(done.body.length).toBe(STREAM_BYTES);
    expect(Math.max(...done.chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    exchange.stream.end();
  }, 30_000);

  it('aborts the platform call of a request cancelled while it waits for credit', async () => {
    const exchange = new ExchangeClient(harness.client);
    const before = platform.requests.length;
    void exchange.send({ ...request('w2', 'kind=stream&n=w2'), window_bytes: WINDOW_BYTES });
    await waitFor(() => chunkBytes(exchange, 'w2') >= WINDOW_BYTES);
    exchange.cancel('w2');
    await platform.requests[before]!.aborted;
    expect((await exchange.send(request('w3', 'n=3'))).failure).toBeNull();
    exchange.stream.end();
  });

  it('ends the stream after the client half-closes and the last answer is out', async () => {
    const exchange = new ExchangeClient(harness.client);
    const answer = exchange.send(request('h', 'n=3&delay_ms=100'));
    exchange.stream.end();
    const ended = new Promise((resolve) => exchange.stream.on('status', resolve));
    expect((await answer).failure).toBeNull();
    expect(await ended).toMatchObject({ code: 0 });
  });

  it('reports SERVING on the standard gRPC health service', async () => {
    const Health = makeClientConstructor(
      healthService as unknown as Parameters<typeof makeClientConstructor>[0],
      'grpc.health.v1.Health',
    ) as ServiceClientConstructor;
    const health = new Health(harness.proxy.grpcAddress, credentials.createInsecure()) as InstanceType<
      typeof Health
    > & { check: (request: { service: string }, callback: (error: Error | null, reply: unknown) => void) => void };
    const check = (service: string) =>
      new Promise((resolve, reject) =>
        health.check({ service }, (error, reply) => (error ? reject(error) : resolve(reply))),
      );
    try {
      expect(await check('')).toEqual({ status: 'SERVING' });
      expect(await check('gateway.provider.v1.ProviderProxy')).toEqual({ status: 'SERVING' });
    } finally {
      health.close();
    }
  });
});

describe('provider-proxy shutdown', () => {
  it('lets in-flight Exchange requests finish, refuses new ones and ends the streams', async () => {
    const platform = await startFakePlatform((_req, res) => setTimeout(() => sendJson(res, { code: 0 }), 300));
    const connections = new MemoryConnections();
    const accountId = connections.add('token');
    const harness = await startTestProxy(testConfig(platform.baseUrl), connections);
    const exchange = new ExchangeClient(harness.client);
    const base = { provider: 'video-ads', account_id: accountId, path: '/v1.3/campaign/get/' };
    const inFlight = exchange.send({ ...base, correlation_id: 'a' });
    await waitFor(() => platform.requests.length === 1);
    const stopped = harness.proxy.shutdown(5_000);
    const late = exchange.send({ ...base, correlation_id: 'b' });
    expect((await inFlight).failure).toBeNull();
    expect((await late).failure?.code).toBe('service_unavailable');
    await stopped;
    harness.client.close();
    await platform.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
