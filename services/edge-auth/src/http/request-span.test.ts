import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bypassInstrumentedEmit, inRequestSpan, requestRunner } from './request-span';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const ROUTE = '/v1/:provider/*';

describe('edge-auth requests without a tracer provider', () => {
  it('run the handler alone: no span, no context of their own', () => {
    const run = requestRunner();
    const req = {} as http.IncomingMessage;
    const res = {} as http.ServerResponse;
    const seen: unknown[] = [];
    run('/v1/me', req, res, (...args) => seen.push(...args, trace.getActiveSpan()));
    expect(run).not.toBe(inRequestSpan);
    expect(seen).toEqual([req, res, undefined]);
  });
});

describe('edge-auth request spans', () => {
  const exporter = new InMemorySpanExporter();
  // The auto-instrumentation the images preload: edge-auth's server must not go through it. Its client side stays off,
  // so that the test's own requests carry the trace context each test gives them.
  const instrumentation = new HttpInstrumentation({ disableOutgoingRequestInstrumentation: true });
  const servers: http.Server[] = [];
  const httpPatch = () => instrumentation.getModuleDefinitions().find((definition) => definition.name === 'http')!;

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    instrumentation.setTracerProvider(provider);
    // The preload patches node:http as it is required, through a hook Jest's module registry does not go through: the
    // same patch, applied here by hand.
    httpPatch().patch!(http);
  });

  afterAll(() => {
    httpPatch().unpatch!(http);
    instrumentation.disable();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  beforeEach(() => exporter.reset());

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A server as edge-auth builds it: every request in its span, the instrumented emit bypassed unless `bypass` is false. */
  async function serve(
    handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
    bypass = true,
  ): Promise<string> {
    const server = http.createServer((req, res) => inRequestSpan(ROUTE, req, res, handle));
    if (bypass) bypassInstrumentedEmit(server);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** One GET through node:http, with exactly the headers given. */
  function get(url: string, headers: Record<string, string> = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
    });
  }

  /** The SERVER spans ended so far. */
  const serverSpans = () => exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);

  async function untilServerSpans(count: number) {
    for (let tries = 0; tries < 100 && serverSpans().length < count; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return serverSpans();
  }

  it('are run in their span once a tracer provider is registered', () => {
    expect(requestRunner()).toBe(inRequestSpan);
  });

  it("makes one SERVER span per request, child of the caller's sampled trace, with the HTTP attributes but the query", async () => {
    let active: string | undefined;
    const origin = await serve((_req, res) => {
      active = trace.getActiveSpan()?.spanContext().spanId;
      res.writeHead(200).end('ok');
    });
    const status = await get(`${origin}/v1/video-ads/v1.3/advertiser/info/?access_token=caller-secret&page=2`, {
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
      'user-agent': 'client/1.0',
    });
    expect(status).toBe(200);
    const [span, ...others] = await untilServerSpans(1);
    expect(others).toHaveLength(0);
    expect(span!.name).toBe(`GET ${ROUTE}`);
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(active).toBe(span!.spanContext().spanId);
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': ROUTE,
      'url.path': '/v1/video-ads/v1.3/advertiser/info/',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'user_agent.original': 'client/1.0',
      'http.response.status_code': 200,
    });
    expect(JSON.stringify(span!.attributes)).not.toContain('caller-secret');
  });

  it('records nothing under an unsampled caller, yet hands its trace on to the handler', async () => {
    let handed: { traceId: string; traceFlags: number } | undefined;
    const origin = await serve((_req, res) => {
      const spanContext = trace.getActiveSpan()?.spanContext();
      handed = spanContext && { traceId: spanContext.traceId, traceFlags: spanContext.traceFlags };
      res.writeHead(204).end();
    });
    await get(`${origin}/v1/video-ads/x`, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-00` });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serverSpans()).toHaveLength(0);
    expect(handed).toEqual({ traceId: TRACE_ID, traceFlags: 0 });
  });

  it('names an IPv6 server without its brackets, and its port apart', async () => {
    const origin = await serve((_req, res) => res.writeHead(200).end());
    await get(`${origin}/v1/video-ads/x`, { host: '[::1]:8443', traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` });
    const [span] = await untilServerSpans(1);
    expect(span!.attributes).toMatchObject({ 'server.address': '::1', 'server.port': 8443 });
  });

  it('starts a trace of its own for a caller that sent none', async () => {
    const origin = await serve((_req, res) => res.writeHead(200).end());
    await get(`${origin}/v1/video-ads/x`);
    const [span] = await untilServerSpans(1);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
  });

  it('marks a 5xx as an error, and a request whose caller left before the answer ended', async () => {
    const failing = await serve((_req, res) => res.writeHead(503).end());
    await get(`${failing}/v1/video-ads/x`);
    const [failed] = await untilServerSpans(1);
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes['http.response.status_code']).toBe(503);

    exporter.reset();
    const hanging = await serve((_req, res) => res.writeHead(200).write('partial'));
    await new Promise<void>((resolve) => {
      const request = http.get(`${hanging}/v1/video-ads/x`, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', () => undefined);
    });
    const [cut] = await untilServerSpans(1);
    expect(cut!.attributes['error.type']).toBe('response_not_finished');
  });

  it("keeps the server's requests out of the http auto-instrumentation: one span per request, edge-auth's", async () => {
    const bypassed = await serve((_req, res) => res.writeHead(200).end());
    await get(`${bypassed}/v1/video-ads/x`);
    await untilServerSpans(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serverSpans().map((span) => span.instrumentationScope.name)).toEqual(['@gateway/edge-auth']);

    // The same server without the bypass: the instrumentation's span comes on top, proof that it is enabled here.
    exporter.reset();
    const instrumented = await serve((_req, res) => res.writeHead(200).end(), false);
    await get(`${instrumented}/v1/video-ads/x`);
    const spans = await untilServerSpans(2);
    expect(spans.map((span) => span.instrumentationScope.name).sort()).toEqual([
      '@gateway/edge-auth',
      '@opentelemetry/instrumentation-http',
    ]);
  });
});
