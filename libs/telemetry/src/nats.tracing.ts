import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { headers as createHeaders, type MsgHdrs } from 'nats';
import { setSafeAttributes } from './safe-attributes';
import { unsampledParent, unsampledRemoteParent } from './trace-context';

// Messaging semantic conventions (still "incubating" upstream, hence spelled out rather than imported).
const ATTR_MESSAGING_SYSTEM = 'messaging.system';
const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
const ATTR_MESSAGING_MESSAGE_BODY_SIZE = 'messaging.message.body.size';
const ATTR_ERROR_TYPE = 'error.type';

/** Attributes of a producer span; the subject is required, it is what the span is about. */
export interface NatsSpanAttributes extends Attributes {
  [ATTR_MESSAGING_DESTINATION_NAME]: string;
}

/** What a consumer span needs of a message: a core NATS `Msg` or a JetStream `JsMsg` both fit. */
export interface NatsMessage {
  subject: string;
  headers?: MsgHdrs;
  data?: Uint8Array;
}

// The proxy tracer follows the provider registered later (by register.ts or a test), so one is enough.
const tracer = trace.getTracer('@gateway/telemetry/nats');

const setter: TextMapSetter<MsgHdrs> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

const getter: TextMapGetter<MsgHdrs> = {
  keys(carrier) {
    return carrier.keys();
  },
  get(carrier, key) {
    // NATS header names are case-sensitive and `get` answers '' when absent; a publisher that canonicalised
    // `traceparent` to `Traceparent` (nats.go does) is still understood.
    const exact = carrier.get(key);
    if (exact) return exact;
    for (const name of carrier.keys()) {
      if (name.toLowerCase() === key) return carrier.get(name) || undefined;
    }
    return undefined;
  },
};

/**
 * Writes the trace context (W3C `traceparent`/`tracestate`, baggage) into NATS headers: the context of
 * `span` if given, else the active one. Does nothing when the SDK is off (no propagator is registered).
 */
export function injectTraceHeaders(headers: MsgHdrs, span?: Span): void {
  const ctx = span === undefined ? context.active() : trace.setSpan(context.active(), span);
  propagation.inject(ctx, headers, setter);
}

/** The context a received message was sent from, on top of the active one; the active one if it has none. */
export function extractTraceContext(msgHeaders?: MsgHdrs): Context {
  const active = context.active();
  return msgHeaders === undefined ? active : propagation.extract(active, msgHeaders, getter);
}

/**
 * The context of a message whose only header is the `traceparent` of a trace no span here would record (nine in ten
 * of the edge's decision batches under the chart's sampler): its span context on top of the active context, as the
 * propagators would give it, without running them (the composite propagator, W3C's parse, a baggage lookup).
 * `undefined` for any other message.
 */
function unsampledSenderContext(msgHeaders: MsgHdrs | undefined): Context | undefined {
  if (msgHeaders === undefined) return undefined;
  const names = msgHeaders.keys();
  if (names.length !== 1 || names[0] !== 'traceparent') return undefined;
  const sender = unsampledRemoteParent(msgHeaders.get('traceparent'));
  return sender === undefined ? undefined : trace.setSpanContext(context.active(), sender);
}

function recordFailure(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    // NatsError carries codes such as '503' (no responders) and 'TIMEOUT'.
    const code = (error as { code?: unknown }).code;
    span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' && code !== '' ? code : error.name);
  } else {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    span.setAttribute(ATTR_ERROR_TYPE, typeof error);
  }
}

/**
 * Starts the PRODUCER span of a NATS publish or request, child of the active span; the caller ends it.
 * Pass it to `injectTraceHeaders` so the consumer's span becomes its child. Attributes whose key looks like a
 * credential are dropped.
 */
export function startProducerSpan(name: string, attributes: NatsSpanAttributes): Span {
  const span = tracer.startSpan(name, { kind: SpanKind.PRODUCER });
  // Attributes are set after the start so that nothing is built when the span is not recorded.
  if (span.isRecording()) {
    span.setAttribute(ATTR_MESSAGING_SYSTEM, 'nats');
    span.setAttribute(ATTR_MESSAGING_OPERATION_TYPE, 'send');
    setSafeAttributes(span, attributes);
  }
  return span;
}

/**
 * Runs `fn` (which publishes or requests) inside a PRODUCER span, handing it the headers to send: they carry
 * the trace context, or are `undefined` when there is none to carry (no SDK, nothing sampled and no incoming
 * trace), so that an untraced message stays header-less. Under an unsampled parent no span is started and the
 * headers carry the parent's context. Ends the span; a rejection marks it failed and is
 * rethrown.
 */
export async function withProducerSpan<T>(
  name: string,
  attributes: NatsSpanAttributes,
  fn: (headers: MsgHdrs | undefined, span: Span) => T | Promise<T>,
): Promise<T> {
  const parent = unsampledParent(context.active());
  if (parent !== undefined) {
    // The span would record nothing: the message carries its parent's context instead, so that the consumer follows
    // the same decision.
    const headers = createHeaders();
    injectTraceHeaders(headers);
    return fn(headers, parent);
  }
  const span = startProducerSpan(name, attributes);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return fn(undefined, span);
  const headers = createHeaders();
  injectTraceHeaders(headers, span);
  try {
    return await context.with(trace.setSpan(context.active(), span), fn, undefined, headers, span);
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs the handler of a received message inside a CONSUMER span, child of the span that sent it (read from
 * the message headers), with `messaging.*` attributes. The span is active while `fn` runs, so log lines and
 * outgoing calls carry its trace. Ends the span; a rejection marks it failed and is rethrown.
 */
export async function withConsumerSpan<T>(
  name: string,
  msg: NatsMessage,
  fn: (span: Span) => T | Promise<T>,
  attributes?: Attributes,
): Promise<T> {
  const unsampled = unsampledSenderContext(msg.headers);
  if (unsampled !== undefined) return context.with(unsampled, fn, undefined, trace.getSpan(unsampled)!);
  const parent = extractTraceContext(msg.headers);
  const sender = unsampledParent(parent);
  if (sender !== undefined) {
    // The sender's trace is not sampled, and the gateway's services follow the sender's decision (parent-based
    // sampling, as the chart sets it): no span here, the sender's context handed on as it came.
    return context.with(parent, fn, undefined, sender);
  }
  const span = tracer.startSpan(name, { kind: SpanKind.CONSUMER }, parent);
  if (!span.isRecording()) {
    // Nothing to record: at most hand an incoming trace context on, without building attributes.
    return isSpanContextValid(span.spanContext())
      ? context.with(trace.setSpan(parent, span), fn, undefined, span)
      : fn(span);
  }
  span.setAttribute(ATTR_MESSAGING_SYSTEM, 'nats');
  span.setAttribute(ATTR_MESSAGING_DESTINATION_NAME, msg.subject);
  span.setAttribute(ATTR_MESSAGING_OPERATION_TYPE, 'process');
  if (msg.data !== undefined) span.setAttribute(ATTR_MESSAGING_MESSAGE_BODY_SIZE, msg.data.length);
  if (attributes !== undefined) setSafeAttributes(span, attributes);
  try {
    return await context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
