import { context, propagation } from '@opentelemetry/api';

/**
 * W3C trace context (traceparent, tracestate) of the active span, for messages that carry context per request
 * rather than per connection (decisions, Exchange frames to provider-proxy). Empty when tracing is off.
 */
export function activeTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
