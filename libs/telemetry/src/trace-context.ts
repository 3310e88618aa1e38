import {
  context,
  isSpanContextValid,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * W3C trace context (traceparent, tracestate) of the active span, for messages that carry context per request
 * rather than per connection (decisions, Exchange frames to provider-proxy). Empty when tracing is off.
 */
export function activeTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * The active context's traceparent for a receiver that starts a span per request from it (the quota-actor's decision
 * span), only when the trace is sampled: under an unsampled parent that span would record nothing.
 */
export function sampledTraceparent(traceContext: Record<string, string>): string | undefined {
  const traceparent = traceContext['traceparent'];
  return traceparent !== undefined && isSampledTraceparent(traceparent) ? traceparent : undefined;
}

/** Where the trace flags start in a traceparent (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`). */
const FLAGS_AT = 53;

/**
 * Whether a W3C traceparent says its trace is sampled (the flags' lowest bit). With a parent-based sampler, as the
 * gateway's services use, nothing is recorded under an unsampled parent, so a receiver can skip the span it would
 * start for it. A malformed value counts as unsampled; future versions keep the same layout up to the flags.
 */
export function isSampledTraceparent(traceparent: string): boolean {
  if (traceparent.length < FLAGS_AT + 2 || traceparent.charCodeAt(FLAGS_AT - 1) !== DASH) return false;
  const high = hexValue(traceparent.charCodeAt(FLAGS_AT));
  const low = hexValue(traceparent.charCodeAt(FLAGS_AT + 1));
  return high >= 0 && low >= 0 && (low & 1) === 1;
}

const DASH = 0x2d;

/** A lower-case hex digit's value (W3C trace context allows no other case), or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** The SDK's samplers that decide without looking at the parent (OTEL_TRACES_SAMPLER values). */
const SAMPLERS_IGNORING_THE_PARENT = new Set(['always_on', 'traceidratio', 'jaeger_remote']);

/**
 * Whether the sampler OTEL_TRACES_SAMPLER names records nothing under an unsampled parent: every `parentbased_*` one
 * (the SDK's default and the chart's), and `always_off`. An unknown name counts as the SDK's default, as the SDK
 * falls back to it.
 */
export function samplerFollowsParent(sampler: string | undefined): boolean {
  return !SAMPLERS_IGNORING_THE_PARENT.has((sampler ?? '').trim().toLowerCase());
}

const FOLLOWS_PARENT = samplerFollowsParent(process.env['OTEL_TRACES_SAMPLER']);

/**
 * The span of `ctx` when a span started under it would record nothing: a valid span context whose trace is not
 * sampled, with a sampler that follows the parent. A receiver or a producer then runs in `ctx` as it is and starts no
 * span: the SDK would ask the sampler, make ids and a context for a span nobody sees. `undefined` otherwise.
 */
export function unsampledParent(ctx: Context): Span | undefined {
  const span = trace.getSpan(ctx);
  return span !== undefined && recordsNoChildren(span) ? span : undefined;
}

/** Whether a span started under `span` would record nothing (see `unsampledParent`). */
export function recordsNoChildren(span: Span): boolean {
  if (!FOLLOWS_PARENT) return false;
  const spanContext = span.spanContext();
  return (spanContext.traceFlags & TraceFlags.SAMPLED) === 0 && isSpanContextValid(spanContext);
}

/** What the API's tracer provider hands spans to while no SDK has registered one: its no-op provider. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether work in `ctx` can leave no trace at all: no tracer provider is registered (every span would be the API's
 * no-op one) and `ctx` is the root context (no parent span, no baggage that a propagator could send on). A caller can
 * then skip its spans and the context it would make for them; with the SDK loaded (the chart's services) it is false.
 */
export function leavesNoTrace(ctx: Context): boolean {
  if (ctx !== ROOT_CONTEXT) return false;
  const provider = trace.getTracerProvider() as Partial<ProxyTracerProvider>;
  return provider.getDelegate?.() === NO_PROVIDER;
}

/** A version-00 W3C traceparent: trace id, parent id, flags (other versions may append fields; the propagator reads them). */
const TRACEPARENT_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The remote span context a version-00 `traceparent` names, when a span started under it would record nothing (an
 * unsampled trace, a sampler that follows the parent): a receiver can then run in it without the propagators.
 * `undefined` for anything else (sampled, malformed, another version), which the propagators read as usual.
 */
export function unsampledRemoteParent(traceparent: string): SpanContext | undefined {
  if (!FOLLOWS_PARENT) return undefined;
  const match = TRACEPARENT_00.exec(traceparent);
  if (match === null) return undefined;
  const traceFlags = parseInt(match[3]!, 16);
  if ((traceFlags & TraceFlags.SAMPLED) !== 0) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags, isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
