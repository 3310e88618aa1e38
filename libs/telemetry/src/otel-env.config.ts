type Env = Readonly<Record<string, string | undefined>>;

/** What register.ts does, decided from the standard OTEL_* variables only. */
export interface TelemetryPlan {
  /** False when OTEL_SDK_DISABLED=true or no signal is exported: then the SDK is not even loaded. */
  start: boolean;
  /** Spans are exported (the SDK reads OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER, ...). */
  traces: boolean;
  /** OTel metrics are exported besides the prom-client /metrics endpoint. */
  metrics: boolean;
  /** Log records are exported besides the JSON lines on stdout. */
  logs: boolean;
  /** OTEL_NODE_ENABLED_INSTRUMENTATIONS is set: the operator's list wins over our quiet defaults. */
  instrumentationsFromEnv: boolean;
  /** SDK variables the environment leaves unset that the gateway sets before the SDK reads them (SPAN_EXPORT_DEFAULTS). */
  sdkDefaults: Record<string, string>;
}

/**
 * How the gateway's services export spans where the environment does not say: at most 64 spans per export. The SDK's
 * default is 512, and an export serialises its spans on the event loop while every request of the process waits:
 * 8-10 ms for 512 spans on a 2-core VM, about 1 ms for 64 (`npm run bench:export-batch`; docs/benchmarks.md, "Spans
 * exported in smaller batches").
 */
export const SPAN_EXPORT_DEFAULTS: Readonly<Record<string, string>> = { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64' };

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/**
 * Our defaults differ from the SDK's in one respect: a signal is exported only when something says where.
 * The SDK would default every OTEL_*_EXPORTER to `otlp` and post to localhost:4318 whether or not a collector
 * listens there, logging a failure per batch. So:
 * - traces: as the SDK when OTEL_TRACES_EXPORTER or an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set; otherwise OTEL_TRACES_EXPORTER behaves as `none`;
 * - metrics and logs: `none` unless OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER or their own endpoint is set,
 *   because metrics are scraped from /metrics (prom-client) and logs are read from stdout; the shared
 *   endpoint alone would send them twice.
 * With nothing exported the SDK is not started at all (it costs over a second of startup), so trace context
 * is then not forwarded either. Spans go out in smaller batches than the SDK's (SPAN_EXPORT_DEFAULTS).
 */
export function planTelemetry(env: Env): TelemetryPlan {
  const exported = (exporter: string | undefined, ...endpoints: (string | undefined)[]): boolean =>
    isSet(exporter) ? exporter?.trim().toLowerCase() !== 'none' : endpoints.some(isSet);
  const traces = exported(
    env.OTEL_TRACES_EXPORTER,
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    env.OTEL_EXPORTER_OTLP_ENDPOINT,
  );
  const metrics = exported(env.OTEL_METRICS_EXPORTER, env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  const logs = exported(env.OTEL_LOGS_EXPORTER, env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT);
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  return {
    start: !disabled && (traces || metrics || logs),
    traces,
    metrics,
    logs,
    instrumentationsFromEnv: isSet(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS),
    sdkDefaults: traces
      ? Object.fromEntries(Object.entries(SPAN_EXPORT_DEFAULTS).filter(([name]) => !isSet(env[name])))
      : {},
  };
}
