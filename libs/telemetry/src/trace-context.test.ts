import { context, createContextKey, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  activeTraceContext,
  isSampledTraceparent,
  leavesNoTrace,
  recordsNoChildren,
  samplerFollowsParent,
  unsampledParent,
  unsampledRemoteParent,
} from './trace-context';

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

describe('samplerFollowsParent', () => {
  it("is true for the SDK's default, every parent-based sampler and always_off", () => {
    for (const name of [
      undefined,
      '',
      'parentbased_always_on',
      'parentbased_traceidratio',
      ' ParentBased_TraceIdRatio ',
      'parentbased_jaeger_remote',
      'always_off',
      'an unknown name',
    ]) {
      expect(samplerFollowsParent(name)).toBe(true);
    }
  });

  it('is false for the samplers that decide without the parent', () => {
    for (const name of ['always_on', 'traceidratio', 'jaeger_remote', 'ALWAYS_ON']) {
      expect(samplerFollowsParent(name)).toBe(false);
    }
  });
});

describe('unsampledParent', () => {
  const withParent = (traceFlags: number, isRemote: boolean) =>
    trace.setSpanContext(context.active(), { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags, isRemote });

  it('gives the span of an unsampled parent, remote or local', () => {
    for (const isRemote of [true, false]) {
      expect(unsampledParent(withParent(TraceFlags.NONE, isRemote))?.spanContext()).toMatchObject({
        traceId: TRACE_ID,
        spanId: SPAN_ID,
      });
    }
  });

  it('gives nothing for a sampled parent, no parent or an invalid one', () => {
    expect(unsampledParent(withParent(TraceFlags.SAMPLED, true))).toBeUndefined();
    expect(unsampledParent(context.active())).toBeUndefined();
    const invalid = trace.setSpanContext(context.active(), {
      traceId: '0'.repeat(32),
      spanId: SPAN_ID,
      traceFlags: TraceFlags.NONE,
    });
    expect(unsampledParent(invalid)).toBeUndefined();
  });

  it("judges a span of one's own the same way (recordsNoChildren)", () => {
    const span = (traceFlags: number) => trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags });
    expect(recordsNoChildren(span(TraceFlags.NONE))).toBe(true);
    expect(recordsNoChildren(span(TraceFlags.SAMPLED))).toBe(false);
    expect(recordsNoChildren(trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: SPAN_ID, traceFlags: 0 }))).toBe(
      false,
    );
  });

  it('gives nothing when OTEL_TRACES_SAMPLER names a sampler that ignores the parent', () => {
    const saved = process.env['OTEL_TRACES_SAMPLER'];
    process.env['OTEL_TRACES_SAMPLER'] = 'always_on';
    try {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const isolated = require('./trace-context') as typeof import('./trace-context');
        expect(isolated.unsampledParent(withParent(TraceFlags.NONE, true))).toBeUndefined();
        const unsampled = trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.NONE });
        expect(isolated.recordsNoChildren(unsampled)).toBe(false);
      });
    } finally {
      if (saved === undefined) delete process.env['OTEL_TRACES_SAMPLER'];
      else process.env['OTEL_TRACES_SAMPLER'] = saved;
    }
  });
});

describe('unsampledRemoteParent', () => {
  it('reads the remote span context of an unsampled version-00 traceparent, as the W3C propagator writes it', () => {
    expect(unsampledRemoteParent(injected(TraceFlags.NONE))).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    expect(unsampledRemoteParent(`00-${TRACE_ID}-${SPAN_ID}-02`)?.traceFlags).toBe(2);
  });

  it('gives nothing for a sampled, malformed, all-zero or later-version traceparent: the propagators read those', () => {
    for (const traceparent of [
      injected(TraceFlags.SAMPLED),
      `00-${TRACE_ID}-${SPAN_ID}-03`,
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-00`,
      `00-${'0'.repeat(32)}-${SPAN_ID}-00`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-00`,
      `01-${TRACE_ID}-${SPAN_ID}-00`,
      `00-${TRACE_ID}-${SPAN_ID}-00-extra`,
      ` 00-${TRACE_ID}-${SPAN_ID}-00`,
      '',
    ]) {
      expect(unsampledRemoteParent(traceparent)).toBeUndefined();
    }
  });

  it('gives nothing when OTEL_TRACES_SAMPLER names a sampler that ignores the parent', () => {
    const saved = process.env['OTEL_TRACES_SAMPLER'];
    process.env['OTEL_TRACES_SAMPLER'] = 'traceidratio';
    try {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const isolated = require('./trace-context') as typeof import('./trace-context');
        expect(isolated.unsampledRemoteParent(`00-${TRACE_ID}-${SPAN_ID}-00`)).toBeUndefined();
      });
    } finally {
      if (saved === undefined) delete process.env['OTEL_TRACES_SAMPLER'];
      else process.env['OTEL_TRACES_SAMPLER'] = saved;
    }
  });
});

describe('leavesNoTrace', () => {
  // The describes above leave their provider registered.
  beforeAll(() => trace.disable());

  it('is true in the root context while no tracer provider is registered', () => {
    expect(leavesNoTrace(ROOT_CONTEXT)).toBe(true);
  });

  it('is false for any other context: a parent span, or a value a propagator could send on', () => {
    const withSpan = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 });
    expect(leavesNoTrace(withSpan)).toBe(false);
    expect(leavesNoTrace(ROOT_CONTEXT.setValue(createContextKey('baggage'), 'x'))).toBe(false);
  });

  it('is false once a tracer provider is registered, and true again after it is taken away', () => {
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      expect(leavesNoTrace(ROOT_CONTEXT)).toBe(false);
    } finally {
      trace.disable();
      void provider.shutdown();
    }
    expect(leavesNoTrace(ROOT_CONTEXT)).toBe(true);
  });
});
