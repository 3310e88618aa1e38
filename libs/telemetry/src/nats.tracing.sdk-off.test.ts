import { headers } from 'nats';
import { injectTraceHeaders, withConsumerSpan, withProducerSpan } from './nats.tracing';

// No tracer provider or propagator is registered in this file: the state of a service without the SDK.
const SUBJECT = 'catalogue.lookup';
const data = new TextEncoder().encode('{"id":"prov_1"}');

describe('nats trace propagation with the SDK off', () => {
  it('hands the producer no headers, so an untraced message stays header-less', async () => {
    const seen = await withProducerSpan(`send ${SUBJECT}`, { 'messaging.destination.name': SUBJECT }, (h, span) => ({
      h,
      recording: span.isRecording(),
    }));
    expect(seen).toEqual({ h: undefined, recording: false });
  });

  it('still runs the handler and returns its result', async () => {
    const result = await withConsumerSpan(`process ${SUBJECT}`, { subject: SUBJECT, data }, (span) =>
      span.isRecording() ? 'recorded' : 'ran',
    );
    expect(result).toBe('ran');
  });

  it('writes nothing into headers', () => {
    const h = headers();
    injectTraceHeaders(h);
    expect(h.keys()).toEqual([]);
  });
});
