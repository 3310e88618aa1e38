import {
  context,
  propagation,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Link,
  type SpanKind as Kind,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';
import {
  ExchangeClient,
  MemoryConnections,
  sendJson,
  startFakePlatform,
  startTestProxy,
  testConfig,
  TEST_APP_SECRET,
  type FakePlatform,
  type TestProxy,
} from '../proxy-harness.fixture';
import { createLogger } from '@gateway/telemetry';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const TOKEN = 'span-test-token-value';

/** The SDK's default sampler (parent-based, roots sampled unless `dropRoots`), counting the spans it is asked for. */
class CountingSampler implements Sampler {
  asked: string[] = [];
  dropRoots = false;
  private readonly keepRoots = new ParentBasedSampler({ root: new AlwaysOnSampler() });
  private readonly dropping = new ParentBasedSampler({ root: new AlwaysOffSampler() });

  shouldSample(
    ctx: Context,
    traceId: string,
    name: string,
    kind: Kind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    this.asked.push(name);
    return (this.dropRoots ? this.dropping : this.keepRoots).shouldSample(ctx, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return 'CountingSampler';
  }
}

interface LogLine {
  msg?: string;
  request_id?: string;
  trace_id?: string;
  span_id?: string;
}

describe('provider-proxy tracing', () => {
  const logged: LogLine[] = [];
  const exporter = new InMemorySpanExporter();
  const sampler = new CountingSampler();
  let platform: FakePlatform;
  let harness: TestProxy;
  const connections = new MemoryConnections();
  const accountId = connections.add(TOKEN);
  // The auto-instrumentation services run with in production: it would record the platform URL.
  const undici = new UndiciInstrumentation();

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const provider = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    undici.setTracerProvider(provider);
    platform = await startFakePlatform((_req, res) => sendJson(res, { code: 0, message: 'OK', data: {} }));
    const logLines = { write: (line: string) => void logged.push(JSON.parse(line) as LogLine) };
    harness = await startTestProxy(
      testConfig(platform.baseUrl),
      connections,
      createLogger('provider-proxy', 'info', logLines),
    );
  });

  afterAll(async () => {
    undici.disable();
    await harness.close();
    await platform.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  beforeEach(() => {
    const name = expect.getState().currentTestName ?? '';
    if (!name.includes('auto-instrumentation') && !name.includes('CLIENT span')) exporter.reset();
  });

  const request = {
    provider: 'video-ads',
    account_id: accountId,
    path: '/v1.3/oauth2/advertiser/get/',
    query: 'access_token=caller-token',
    key_id: 'dg_live_abcdefgh',
    request_id: 'req_1',
    trace_context: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`, tracestate: 'vendor=x' },
  };

  it.each(['fetch', 'exchange'])(
    'records one "provider-proxy fetch" span per %s request under the trace_context parent',
    async (transport) => {
      if (transport === 'fetch') {
        expect((await harness.fetch(request)).status).toBe(200);
      } else {
        const exchange = new ExchangeClient(harness.client);
        expect((await exchange.send({ ...request, correlation_id: 't1' })).head?.status).toBe(200);
        exchange.stream.end();
      }
      const spans = exporter.getFinishedSpans().filter((span) => span.name === 'provider-proxy fetch');
      expect(spans).toHaveLength(1);
      const [span] = spans;
      expect(span!.spanContext().traceId).toBe(TRACE_ID);
      expect(span!.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
      expect(span!.attributes).toMatchObject({
        'gateway.provider': 'video-ads',
        'gateway.endpoint': '/v1.3/oauth2/advertiser/get/',
        'gateway.key_id': 'dg_live_abcdefgh',
        'gateway.account_id': accountId,
        'gateway.request_id': 'req_1',
        'gateway.transport': transport,
        'http.response.status_code': 200,
      });
      const recorded = JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events]));
      expect(recorded).not.toContain(TOKEN);
      expect(recorded).not.toContain(TEST_APP_SECRET);
      expect(recorded).not.toContain('caller-token');
    },
  );

  it('records the platform call as its own CLIENT span without the query, under the request span', () => {
    const spans = exporter.getFinishedSpans();
    const [fetchSpan] = spans.filter((span) => span.name === 'provider-proxy fetch');
    const platformSpans = spans.filter((span) => span.name === 'GET');
    expect(platformSpans).toHaveLength(1);
    const [platformSpan] = platformSpans;
    expect(platformSpan!.kind).toBe(SpanKind.CLIENT);
    expect(platformSpan!.parentSpanContext?.spanId).toBe(fetchSpan!.spanContext().spanId);
    expect(platformSpan!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'url.path': '/open_api/v1.3/oauth2/advertiser/get/',
      'http.response.status_code': 200,
      'gateway.provider': 'video-ads',
    });
    expect(Object.keys(platformSpan!.attributes)).not.toEqual(expect.arrayContaining(['url.full']));
    expect(Object.keys(platformSpan!.attributes)).not.toEqual(expect.arrayContaining(['url.query']));
  });

  it('keeps the platform call out of the undici auto-instrumentation: no URL span, no trace headers sent', () => {
    expect(platform.requests.length).toBeGreaterThan(0);
    const others = exporter.getFinishedSpans().filter((span) => !['provider-proxy fetch', 'GET'].includes(span.name));
    expect(others).toEqual([]);
    expect(exporter.getFinishedSpans().some((span) => 'url.full' in span.attributes)).toBe(false);
    for (const seen of platform.requests) {
      expect(seen.headers.traceparent).toBeUndefined();
      expect(seen.headers.tracestate).toBeUndefined();
    }
  });

  it('marks a failed request on its span', async () => {
    const response = await harness.fetch({ ...request, path: '/v1.3/campaign/create/' });
    expect(response.failure?.code).toBe('path_not_allowed');
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'provider-proxy fetch');
    expect(span!.status).toMatchObject({ code: 2, message: 'path_not_allowed' });
    expect(span!.attributes['gateway.endpoint']).toBeUndefined();
  });

  // The SDK's work for a span nobody records (sampler, ids, a context) is what the proxy skips on the 90 % of requests
  // the chart does not sample; the sampler's calls show whether a span was started at all.
  describe('under an unsampled caller', () => {
    beforeEach(() => {
      exporter.reset();
      sampler.asked = [];
    });
    afterEach(() => {
      sampler.dropRoots = false;
    });

    const withFlags = (flags: string | undefined) => {
      const traceContext: Record<string, string> = {};
      if (flags !== undefined) traceContext['traceparent'] = `00-${TRACE_ID}-${PARENT_SPAN_ID}-${flags}`;
      return { ...request, trace_context: traceContext };
    };

    it.each(['fetch', 'exchange'])(
      'starts no span for an unsampled traceparent over %s, and answers',
      async (transport) => {
        const before = platform.requests.length;
        if (transport === 'fetch') {
          expect((await harness.fetch(withFlags('00'))).status).toBe(200);
        } else {
          const exchange = new ExchangeClient(harness.client);
          expect((await exchange.send({ ...withFlags('00'), correlation_id: 'u1' })).head?.status).toBe(200);
          exchange.stream.end();
        }
        expect(platform.requests.length).toBe(before + 1);
        expect(sampler.asked).toEqual([]);
        expect(exporter.getFinishedSpans()).toEqual([]);
      },
    );

    it("logs under the caller's trace and span ids when it starts no span", async () => {
      const response = await harness.fetch({
        ...withFlags('00'),
        request_id: 'req_unsampled_log',
        path: '/v1.3/campaign/create/',
      });
      expect(response.failure?.code).toBe('path_not_allowed');
      expect(sampler.asked).toEqual([]);
      const line = logged.find((entry) => entry.request_id === 'req_unsampled_log');
      expect(line).toMatchObject({ msg: 'provider-proxy request failed', trace_id: TRACE_ID, span_id: PARENT_SPAN_ID });
    });

    it('asks for the request span and its platform span under a sampled traceparent', async () => {
      expect((await harness.fetch(withFlags('01'))).status).toBe(200);
      expect(sampler.asked).toEqual(['provider-proxy fetch', 'GET']);
    });

    it('asks for no platform span under a request span its sampler dropped (no caller trace)', async () => {
      sampler.dropRoots = true;
      expect((await harness.fetch(withFlags(undefined))).status).toBe(200);
      expect(sampler.asked).toEqual(['provider-proxy fetch']);
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });
});
