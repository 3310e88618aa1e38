import { ProxyTracer, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
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

// No tracer provider is registered in this file until the last test: a service without the SDK, as the benches run it.
describe('provider-proxy without a tracer provider', () => {
  let platform: FakePlatform;
  let harness: TestProxy;
  const connections = new MemoryConnections();
  const accountId = connections.add('untraced-test-token');
  const request = {
    provider: 'video-ads',
    account_id: accountId,
    path: '/v1.3/oauth2/advertiser/get/',
    query: '',
    key_id: 'dg_live_abcdefgh',
    request_id: 'req_untraced',
  };
  let spies: jest.SpyInstance[] = [];
  const spansStarted = () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);

  beforeAll(async () => {
    spies = [jest.spyOn(ProxyTracer.prototype, 'startActiveSpan'), jest.spyOn(ProxyTracer.prototype, 'startSpan')];
    platform = await startFakePlatform((_req, res) => sendJson(res, { code: 0, message: 'OK', data: {} }));
    harness = await startTestProxy(testConfig(platform.baseUrl), connections);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    trace.disable();
    await harness.close();
    await platform.close();
  });

  afterEach(() => jest.clearAllMocks());

  async function sendBoth(): Promise<void> {
    expect((await harness.fetch(request)).status).toBe(200);
    const exchange = new ExchangeClient(harness.client);
    expect((await exchange.send({ ...request, correlation_id: 'u1' })).head?.status).toBe(200);
    exchange.stream.end();
  }

  it('answers on both transports without starting a span, and sends the platform no trace headers', async () => {
    await sendBoth();
    expect(spansStarted()).toBe(0);
    expect(platform.requests.length).toBeGreaterThanOrEqual(2);
    for (const seen of platform.requests) expect(seen.headers.traceparent).toBeUndefined();
  });

  it('starts its spans again once a tracer provider is registered', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await sendBoth();
    expect(spansStarted()).toBe(4); // each request's span and its platform call's
    expect(exporter.getFinishedSpans().filter((span) => span.name === 'provider-proxy fetch')).toHaveLength(2);
  });
});
