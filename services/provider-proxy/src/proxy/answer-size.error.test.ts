import {
  ExchangeClient,
  MemoryConnections,
  startFakePlatform,
  startTestProxy,
  testConfig,
  type FakePlatform,
  type TestProxy,
} from '../proxy-harness.fixture';

const MAX_ANSWER_BYTES = 256 * 1024;
const CAMPAIGNS = '/v1.3/campaign/get/';
/** Within the bound, and larger than the windows the tests ask for. */
const MEDIUM_BYTES = 200 * 1024;

/** UPSTREAM_MAX_ANSWER_BYTES: a platform answer above it is never passed on whole (docs/rest.md). */
describe('provider-proxy - answers larger than UPSTREAM_MAX_ANSWER_BYTES', () => {
  let platform: FakePlatform;
  let connections: MemoryConnections;
  let harness: TestProxy;
  /** Bytes the fake platform managed to write per answer kind (the proxy should stop reading early). */
  const written: Record<string, number> = {};
  /** Per answer kind, resolves once the platform's side of its latest answer has closed. */
  const answered: Record<string, Promise<void>> = {};

  beforeAll(async () => {
    platform = await startFakePlatform((req, res) => {
      const kind = new URL(req.url ?? '/', 'http://x').searchParams.get('kind') ?? 'small';
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      if (kind === 'small') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
        return res.end('{}');
      }
      if (kind === 'medium') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(Buffer.alloc(MEDIUM_BYTES, 0x20));
      }
      // 'declared' announces 64 MiB; 'chunked' announces nothing. Both stream for as long as they are read.
      const total = 64 * 1024 * 1024;
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(kind === 'declared' ? { 'content-length': total } : {}),
      });
      written[kind] = 0;
      answered[kind] = new Promise((resolve) => res.once('close', () => resolve()));
      const pump = (): void => {
        while (written[kind]! < total) {
          if (res.destroyed) return;
          written[kind]! += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    connections = new MemoryConnections();
    harness = await startTestProxy(
      testConfig(platform.baseUrl, { UPSTREAM_MAX_ANSWER_BYTES: MAX_ANSWER_BYTES }),
      connections,
    );
  });

  afterAll(async () => {
    await harness.close();
    await platform.close();
  });

  const call = (accountId: string, kind: string) => ({
    provider: 'video-ads',
    account_id: accountId,
    path: CAMPAIGNS,
    query: `advertiser_id=1&kind=${kind}`,
  });

  it('refuses an answer that announces more than the bound before anything is passed on (Fetch and Exchange)', async () => {
    const accountId = connections.add('token-a');
    const fetched = await harness.fetch(call(accountId, 'declared'));
    expect(fetched.failure).toMatchObject({ code: 'platform_answer_too_large' });
    expect(fetched.failure?.detail).toContain(String(MAX_ANSWER_BYTES));

    const exchange = new ExchangeClient(harness.client);
    const answer = await exchange.send({ ...call(accountId, 'declared'), correlation_id: 'declared' });
    expect(answer.kinds).toEqual(['end']);
    expect(answer.head).toBeUndefined();
    expect(answer.failure).toMatchObject({ code: 'platform_answer_too_large' });
    exchange.stream.end();
    expect(written['declared']).toBeLessThan(16 * 1024 * 1024);
  });

  it('cuts off an answer without a length once it passes the bound, and stops reading the platform', async () => {
    const accountId = connections.add('token-b');
    const fetched = await harness.fetch(call(accountId, 'chunked'));
    expect(fetched.failure).toMatchObject({ code: 'platform_answer_too_large' });

    const exchange = new ExchangeClient(harness.client);
    const answer = await exchange.send({ ...call(accountId, 'chunked'), correlation_id: 'chunked' });
    expect(answer.failure).toMatchObject({ code: 'platform_answer_too_large' });
    expect(answer.body.length).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    exchange.stream.end();
    // The proxy hung up on the platform; had it read on, the platform would have written its 64 MiB first.
    await answered['chunked'];
    expect(written['chunked']).toBeLessThan(16 * 1024 * 1024);
  });

  it('stops a unary answer at max_body_bytes, and stops reading the platform there', async () => {
    const accountId = connections.add('token-d');
    const limit = 100_001;
    const fetched = await harness.fetch({ ...call(accountId, 'limited'), max_body_bytes: limit });
    expect(fetched.failure).toBeNull();
    expect(fetched.status).toBe(200);
    expect(fetched.body.length).toBe(limit);
    await answered['limited'];
    expect(written['limited']).toBeLessThan(16 * 1024 * 1024);

    const whole = await harness.fetch({ ...call(accountId, 'small'), max_body_bytes: limit });
    expect(whole.body.toString()).toBe('{}');
  });

  it('passes a unary answer whole whatever window_bytes says (the Exchange flow control edge-auth always sets)', async () => {
    const accountId = connections.add('token-e');
    const fetched = await harness.fetch({ ...call(accountId, 'medium'), window_bytes: 64 * 1024 });
    expect(fetched.failure).toBeNull();
    expect(fetched.body.length).toBe(MEDIUM_BYTES);
  });

  it('still passes answers within the bound', async () => {
    const accountId = connections.add('token-c');
    const fetched = await harness.fetch(call(accountId, 'small'));
    expect(fetched.failure).toBeNull();
    expect(fetched.body.toString()).toBe('{}');
  });
});
