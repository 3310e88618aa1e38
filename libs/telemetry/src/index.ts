export { createLogger, logListening } from './logger';
export type { Logger } from './logger';
export { shutdownTelemetry } from './telemetry.lifecycle';
export { stopOnSignals, runMain } from './service-lifecycle';
export { drainHttpServer } from './http-drain';
export {
  extractTraceContext,
  injectTraceHeaders,
  startProducerSpan,
  withConsumerSpan,
  withProducerSpan,
} from './nats.tracing';
export type { NatsMessage, NatsSpanAttributes } from './nats.tracing';
export {
  counterSeries,
  createCounter,
  createGauge,
  createHistogram,
  createMetrics,
  createTalliedHistogram,
  gaugeSeries,
  httpRequestDuration,
  LATENCY_BUCKETS_SECONDS,
  METRIC_PREFIX,
  metricsHandler,
  seriesByLabels,
  talliedHttpRequestDuration,
} from './metrics.registry';
export { TalliedHistogram } from './tallied-histogram';
export type { HistogramSeries } from './tallied-histogram';
export type { GaugeSeries, HistogramDefinition, HttpRequestLabel, MetricDefinition } from './metrics.registry';
export { clusterMetricsHandler } from './cluster-metrics';
export { runWorkerProcesses } from './worker-processes';
export { serveHandedConnections } from './connection-handoff';
export type { HandedConnections } from './connection-handoff';
export type { WorkerProcessesOptions } from './worker-processes';
export { isSecretName, setSafeAttributes } from './safe-attributes';
export {
  activeTraceContext,
  isSampledTraceparent,
  leavesNoTrace,
  recordsNoChildren,
  sampledTraceparent,
  unsampledParent,
} from './trace-context';
export { isUntracedPath } from './untraced-paths';
