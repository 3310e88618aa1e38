import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { headers, MsgHdrsImpl, type MsgHdrs } from 'nats';
import {
  extractTraceContext,
  injectTraceHeaders,
  startProducerSpan,
  withConsumerSpan,
  withProducerSpan,
} from './nats.tracing';

const SUBJECT = 'catalogue.lookup';
const data = new TextEncoder().encode('{"id":"prov_1"}');

/** The headers as the receiving side sees them: encoded to the NATS wire format and decoded again. */
function overTheWire(sent: MsgHdrs): MsgHdrs {
  return MsgHdrsImpl.decode((sent as MsgHdrsImpl).encode());
}

describe('nats trace propagation with the SDK on', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(() => provider.register());
  afterEach(() => exporter.reset());
  afterAll(() => provider.shutdown());

  it('makes the handler span a child of the request span through the message headers alone', async () => {
    let sent: MsgHdrs | undefined;
    await withProducerSpan(`send ${SUBJECT}`, { 'messaging.destination.name': SUBJECT }, (h) => {
      sent = h;
    });
    expect(sent?.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    // the handler runs where no span is active, as in the service that receives the message
    await context.with(ROOT_CONTEXT, () =>
      withConsumerSpan(
        `process ${SUBJECT}`,
        { subject: SUBJECT, headers: overTheWire(sent as MsgHdrs), data },
        () => 'ok',
      ),
    );

    const [producer, consumer] = exporter.getFinishedSpans();
    expect(producer?.kind).toBe(SpanKind.PRODUCER);
    expect(consumer?.kind).toBe(SpanKind.CONSUMER);
    expect(consumer?.spanContext().traceId).toBe(producer?.spanContext().traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
  });

  it('records the messaging attributes of both sides', async () => {
    await withProducerSpan(
      `send ${SUBJECT}`,
      { 'messaging.destination.name': SUBJECT, 'gateway.provider': 'meta' },
      () => undefined,
    );
    await withConsumerSpan(`process ${SUBJECT}`, { subject: SUBJECT, data }, () => undefined, {
      'gateway.provider': 'meta',
    });

    const [producer, consumer] = exporter.getFinishedSpans();
    expect(producer?.attributes).toEqual({
      'messaging.system': 'nats',
      'messaging.operation.type': 'send',
      'messaging.destination.name': SUBJECT,
      'gateway.provider': 'meta',
    });
    expect(consumer?.attributes).toEqual({
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.destination.name': SUBJECT,
      'messaging.message.body.size': data.length,
      'gateway.provider': 'meta',
    });
  });

  it('makes the consumer span the active span while the handler runs', async () => {
    let activeSpanId: string | undefined;
    await withConsumerSpan(`process ${SUBJECT}`, { subject: SUBJECT }, () => {
      activeSpanId = trace.getActiveSpan()?.spanContext().spanId;
    });
    expect(activeSpanId).toBe(exporter.getFinishedSpans()[0]?.spanContext().spanId);
  });

  it('marks the span failed and rethrows when the handler rejects', async () => {
    const failure = Object.assign(new Error('no responders'), { code: '503' });
    await expect(
      withConsumerSpan(`process ${SUBJECT}`, { subject: SUBJECT }, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(
      withProducerSpan(`send ${SUBJECT}`, { 'messaging.destination.name': SUBJECT }, () => Promise.reject(failure)),
    ).rejects.toBe(failure);

    for (const span of exporter.getFinishedSpans()) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no responders' });
      expect(span.attributes['error.type']).toBe('503');
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
    }
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });

  it('drops caller attributes that look like credentials', async () => {
    await withConsumerSpan(`process ${SUBJECT}`, { subject: SUBJECT }, () => undefined, {
      'gateway.account_id': 'act_1',
      'gateway.access_token': 'EAAB-secret',
      authorization: 'Bearer x',
    });
    const attributes = exporter.getFinishedSpans()[0]?.attributes ?? {};
    expect(attributes['gateway.account_id']).toBe('act_1');
    expect(Object.keys(attributes)).not.toContain('gateway.access_token');
    expect(Object.keys(attributes)).not.toContain('authorization');
  });

  it('injects the active span when no span is given, and a started producer span when one is', () => {
    const producer = startProducerSpan(`send ${SUBJECT}`, { 'messaging.destination.name': SUBJECT });
    const explicit = headers();
    injectTraceHeaders(explicit, producer);
    const active = headers();
    context.with(trace.setSpan(context.active(), producer), () => injectTraceHeaders(active));
    producer.end();

    const expected = `00-${producer.spanContext().traceId}-${producer.spanContext().spanId}-01`;
    expect(explicit.get('traceparent')).toBe(expected);
    expect(active.get('traceparent')).toBe(expected);
  });

  it('understands a traceparent header whose name a publisher canonicalised', () => {
    const h = headers();
    h.set('Traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    const parent = trace.getSpanContext(extractTraceContext(h));
    expect(parent?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parent?.isRemote).toBe(true);
  });

  it('returns the active context for a message without headers', () => {
    expect(extractTraceContext(undefined)).toBe(context.active());
  });
});
