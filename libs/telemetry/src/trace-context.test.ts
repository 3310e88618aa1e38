import { context, trace, TraceFlags } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { activeTraceContext, isSampledTraceparent } from './trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

/** The traceparent the SDK's W3C propagator writes for a span context with these flags. */
function injected(traceFlags: number): string {
  const ctx = trace.setSpanContext(context.active(), { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags });
  return context.with(ctx, () => activeTraceContext()['traceparent']!);
}

describe('isSampledTraceparent', () => {
  const provider = new NodeTracerProvider();
  beforeAll(() => provider.register());
  afterAll(() => provider.shutdown());

  it('reads the sampled flag of what the W3C propagator writes', () => {
    expect(isSampledTraceparent(injected(TraceFlags.SAMPLED))).toBe(true);
    expect(isSampledTraceparent(injected(TraceFlags.NONE))).toBe(false);
  });

  it('reads only the lowest bit of the flags', () => {
    expect(isSampledTraceparent(`00-${TRACE_ID}-${SPAN_ID}-03`)).toBe(true);
    expect(isSampledTraceparent(`00-${TRACE_ID}-${SPAN_ID}-02`)).toBe(false);
    expect(isSampledTraceparent(`00-${TRACE_ID}-${SPAN_ID}-ff`)).toBe(true);
  });

  it('takes a later version by the same layout, with fields after the flags', () => {
    expect(isSampledTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01-what-the-future-adds`)).toBe(true);
  });

  it('counts a malformed value as unsampled', () => {
    for (const value of [
      '',
      '01',
      `00-${TRACE_ID}-${SPAN_ID}`,
      `00-${TRACE_ID}-${SPAN_ID}x01`,
      `00-${TRACE_ID}-${SPAN_ID}-zz`,
      `00-${TRACE_ID}-${SPAN_ID}-0g`,
      `00-${TRACE_ID}-${SPAN_ID}-g1`,
      `00-${TRACE_ID}-${SPAN_ID}-0F`,
    ]) {
      expect(isSampledTraceparent(value)).toBe(false);
    }
  });
});
