import type { IncomingMessage } from 'node:http';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { context } from '@opentelemetry/api';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import type { TelemetryPlan } from './otel-env.config';
import { redactIncomingQuery, redactUrl, SECRET_QUERY_PARAMS } from './safe-attributes';
import { registerRunningTelemetry } from './telemetry.lifecycle';
import { isUntracedPath } from './untraced-paths';

function isProbe(req: IncomingMessage): boolean {
  return isUntracedPath(req.url);
}

/**
 * The instrumentations left off unless OTEL_NODE_ENABLED_INSTRUMENTATIONS names them (a programmatic `enabled` would
 * win over that list, so with a list none is set here).
 */
export function quietInstrumentations(plan: TelemetryPlan): Record<string, { enabled: false }> {
  if (plan.instrumentationsFromEnv) return {};
  return {
    // Spans per file read, DNS lookup and socket add volume, not insight.
    '@opentelemetry/instrumentation-fs': { enabled: false },
    '@opentelemetry/instrumentation-dns': { enabled: false },
    '@opentelemetry/instrumentation-net': { enabled: false },
    // Express 5 routes through the `router` package: its layer spans would say what the Express ones do.
    '@opentelemetry/instrumentation-router': { enabled: false },
    // Its only output is metrics. With no OTel metrics exported they go nowhere (prom-client serves the runtime's on
    // /metrics), yet its event-loop delay monitor woke every traced service a hundred times a second, idle or not.
    ...(plan.metrics ? {} : { '@opentelemetry/instrumentation-runtime-node': { enabled: false } }),
  };
}

function instrumentations(plan: TelemetryPlan) {
  return getNodeAutoInstrumentations({
    ...quietInstrumentations(plan),
    '@opentelemetry/instrumentation-http': {
      // Platform APIs take access_token/key in the query string; it must not reach url.full or url.query.
      redactedQueryParams: [...SECRET_QUERY_PARAMS],
      redactedQueryParamsServer: [...SECRET_QUERY_PARAMS],
      // A caller's query can hold credentials under any name: no value of it is kept on the server span.
      requestHook: (span, request) => {
        if (isIncoming(request)) redactIncomingQuery(span);
      },
      ignoreIncomingRequestHook: isProbe,
    },
    '@opentelemetry/instrumentation-express': {
      // A span per middleware or handler layer would sit between the request span and the gateway's own spans
      // (the actor's decision, the gRPC hop) without telling anything; the request span still gets http.route.
      ignoreLayers: [() => true],
    },
    '@opentelemetry/instrumentation-undici': {
      // provider-proxy calls the platforms with tracing suppressed (its own span describes the call). The
      // instrumentation would still parse the URL and headers, start a span that records nothing and time the call,
      // per call: a suppressed call is left alone from the start.
      ignoreRequestHook: isCallSuppressed,
      // fetch() spans record the full URL without redaction; these attributes replace it before the start.
      startSpanHook(request) {
        if (!request.path.includes('?')) return {};
        const full = redactUrl(new URL(request.path, request.origin).toString());
        return { 'url.full': full, 'url.query': full.slice(full.indexOf('?')) };
      },
    },
    '@opentelemetry/instrumentation-pino': {
      // createLogger() already writes trace_id/span_id; sending goes through a second pino stream that
      // re-parses every line, so it is on only when logs are exported.
      disableLogCorrelation: true,
      disableLogSending: !plan.logs,
    },
  });
}

/** Whether an outgoing call runs with tracing suppressed (the undici instrumentation then leaves it alone). */
export function isCallSuppressed(): boolean {
  return core.isTracingSuppressed(context.active());
}

/**
 * Starts the NodeSDK, configured by the standard OTEL_* variables, with the plan's signals switched off
 * explicitly (an empty list of processors or readers is the SDK's `none`).
 */
export function startTelemetry(plan: TelemetryPlan): void {
  // The SDK reads its batch settings from the environment only; it is read when the SDK starts, below.
  Object.assign(process.env, plan.sdkDefaults);
  const sdk = new NodeSDK({
    instrumentations: instrumentations(plan),
    ...(plan.traces ? {} : { spanProcessors: [] }),
    ...(plan.metrics ? {} : { metricReaders: [] }),
    ...(plan.logs ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  registerRunningTelemetry(() => sdk.shutdown());
}

function isIncoming(request: unknown): request is IncomingMessage {
  return (
    typeof request === 'object' &&
    request !== null &&
    'httpVersion' in request &&
    !('method' in request && 'path' in request)
  );
}
