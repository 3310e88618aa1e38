import { context, propagation, trace, type Span } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { headers } from 'nats';
import { withConsumerSpan, withProducerSpan } from './nats.tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SENDER_SPAN_ID = '00f067aa0ba902b7';

// A sampler that ignores the parent: what this file checks is that a consumer does not even ask it under an
// unsampled sender, as the services run with a parent-based sampler that would record nothing there.
describe('nats spans under an unsampled sender', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });

  beforeAll(() =>
    provider.register({
      propagator: new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    }),
  );
  afterEach(() => exporter.reset());
  afterAll(() => provider.shutdown());

  const message = (flags: string) => {
    const h = headers();
    h.set('traceparent', `00-${TRACE_ID}-${SENDER_SPAN_ID}-${flags}`);
    return { subject: 'gw.decide', headers: h, data: new Uint8Array(3) };
  };

  it("starts no span, and runs the handler in the sender's context, which later calls hand on", async () => {
    let active: Span | undefined;
    let given: Span | undefined;
    const result = await withConsumerSpan('gw decide', message('00'), async (span) => {
      given = span;
      await new Promise((resolve) => setImmediate(resolve));
      active = trace.getSpan(context.active());
      return 'decided';
    });
    expect(result).toBe('decided');
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(given?.isRecording()).toBe(false);
    expect(active?.spanContext()).toEqual({ traceId: TRACE_ID, spanId: SENDER_SPAN_ID, traceFlags: 0, isRemote: true });
  });

  it("hands on the sender's tracestate and baggage too: a message with more than a traceparent is read in full", async () => {
    const sent = message('00');
    sent.headers.set('tracestate', 'vendor=opaque');
    sent.headers.set('baggage', 'tenant=t1');
    const seen = await withConsumerSpan('gw decide', sent, () => ({
      traceState: trace.getSpan(context.active())?.spanContext().traceState?.serialize(),
      tenant: propagation.getBaggage(context.active())?.getEntry('tenant')?.value,
    }));
    expect(seen).toEqual({ traceState: 'vendor=opaque', tenant: 't1' });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('still records the span of a sampled sender', async () => {
    await withConsumerSpan('gw decide', message('01'), () => undefined);
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext?.spanId).toBe(SENDER_SPAN_ID);
  });

  it("starts no producer span under an unsampled parent: the message carries the parent's context", async () => {
    const parent = trace.setSpanContext(context.active(), {
      traceId: TRACE_ID,
      spanId: SENDER_SPAN_ID,
      traceFlags: 0,
    });
    const sent = await context.with(parent, () =>
      withProducerSpan('gw decide', { 'messaging.destination.name': 'gw.decide' }, (headers, span) => ({
        traceparent: headers?.get('traceparent'),
        recording: span.isRecording(),
      })),
    );
    expect(sent).toEqual({ traceparent: `00-${TRACE_ID}-${SENDER_SPAN_ID}-00`, recording: false });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('still records the producer span of a sampled parent', async () => {
    const parent = trace.setSpanContext(context.active(), { traceId: TRACE_ID, spanId: SENDER_SPAN_ID, traceFlags: 1 });
    await context.with(parent, () =>
      withProducerSpan('gw decide', { 'messaging.destination.name': 'gw.decide' }, () => undefined),
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext?.spanId).toBe(SENDER_SPAN_ID);
  });
});
