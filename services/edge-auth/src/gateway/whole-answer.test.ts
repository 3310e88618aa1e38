import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { FetchRequest, ProviderCall, ProviderCaller, ResponseHeadInfo, ResponseSink } from '@gateway/proto';
import { newApiKeySecret } from '@gateway/store';
import { serveGatewayHandler, type ServedGateway } from './gateway-handler.fixture';

const RETIRING = '/v1/search-ads/api/v5/campaigns';

/** provider-proxy as seen through the caller: each request gets the answer the test set, in one whole frame. */
class WholeAnswers implements ProviderCaller {
  readonly requests: FetchRequest[] = [];
  answer: { head: ResponseHeadInfo; body: Buffer } | { failure: { code: string; detail: string } } = {
    head: { status: 200, contentType: 'application/json', headers: {} },
    body: Buffer.from('{}'),
  };

  call(request: FetchRequest, sink: ResponseSink): ProviderCall {
    this.requests.push(request);
    const answer = this.answer;
    setImmediate(() => {
      if ('failure' in answer) sink.onEnd(answer.failure);
      else sink.onWhole!(answer.head, answer.body);
    });
    return { cancel: () => undefined, credit: () => undefined };
  }

  close(): void {}
}

const rate = { limit: 100, windowSeconds: 1, remaining: 99, resetSeconds: 1 };
const quota = { limit: 1_000, used: 1, remaining: 999, resetSeconds: 1_000, overageMode: 'metered' as const };

describe('a forwarded answer that came whole', () => {
  let served: ServedGateway;
  let proxy: WholeAnswers;

  beforeEach(async () => {
    proxy = new WholeAnswers();
    served = await serveGatewayHandler({
      decisions: {
        decide: () =>
          Promise.resolve({
            ok: true,
            keyId: 'key_1',
            customerId: 'cus_1',
            mcpTier: 'basic',
            rate,
            quota,
            accountId: 'org_1',
          }),
        refund: () => Promise.resolve(),
      },
      caller: proxy,
    });
  });

  afterEach(() => served.close());

  /** GET with a key, a request id and an account; the raw field list keeps repeated fields apart. */
  async function get(
    path: string,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; raw: string[]; body: string }> {
    const req = httpRequest({
      host: '127.0.0.1',
      port: served.port,
      path,
      headers: { 'X-API-Key': newApiKeySecret(), 'X-Request-Id': 'client-id.7', 'X-Account-Id': 'org_1' },
    });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    return { status: res.statusCode!, headers: res.headers, raw: res.rawHeaders, body };
  }

  const names = (raw: string[]) => raw.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase());

  it("carries the request's stamp, the platform's passed-on fields and the gateway's RateLimit, once each", async () => {
    const body = Buffer.from('{"data":{"campaigns":[]}}');
    proxy.answer = {
      head: {
        status: 200,
        contentType: 'application/json; charset=utf-8',
        headers: {
          'x-rate-limit': '12',
          // Names only the gateway sets, and framing: never passed on.
          RateLimit: '"platform";r=0;t=1',
          'x-request-id': 'platform-id',
          'content-length': '999',
          connection: 'close',
        },
      },
      body,
    };
    const answer = await get(RETIRING);

    expect(answer.status).toBe(200);
    expect(answer.body).toBe(body.toString());
    expect(answer.headers).toMatchObject({
      'x-request-id': 'client-id.7',
      deprecation: '@1795564800',
      sunset: 'Tue, 26 Jan 2027 00:00:00 GMT',
      link: expect.stringContaining('</v1/deprecations/search-ads/v5>; rel="deprecation"'),
      'x-rate-limit': '12',
      'ratelimit-policy': expect.stringMatching(/^"rate";q=100;w=1, "monthly";q=1000;w=\d+$/),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length),
    });
    expect(answer.headers['ratelimit']).toBe('"rate";r=99;t=1, "monthly";r=999;t=1000');
    expect(answer.headers['connection']).toBe('keep-alive');
    const fieldNames = names(answer.raw);
    expect(fieldNames.length).toBe(new Set(fieldNames).size);
    expect(proxy.requests[0]).toMatchObject({ request_id: 'client-id.7', provider: 'search-ads', account_id: 'org_1' });
  });

  it('stamps a failure before any head with the request id and the lifecycle fields too', async () => {
    proxy.answer = { failure: { code: 'platform_timeout', detail: 'the platform did not answer in time' } };
    const answer = await get(RETIRING);

    expect(answer.status).toBe(504);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.headers).toMatchObject({ 'x-request-id': 'client-id.7', deprecation: '@1795564800' });
    expect(answer.headers['ratelimit']).toBe('"rate";r=99;t=1, "monthly";r=999;t=1000');
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'platform_timeout', request_id: 'client-id.7' });
  });
});
