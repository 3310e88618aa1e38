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
  createHistogram,
  createMetrics,
  httpRequestDuration,
  LATENCY_BUCKETS_SECONDS,
  METRIC_PREFIX,
  metricsHandler,
} from './metrics.registry';
export type { HistogramDefinition, HttpRequestLabel, MetricDefinition } from './metrics.registry';
export { clusterMetricsHandler } from './cluster-metrics';
export { runWorkerProcesses } from './worker-processes';
export type { WorkerProcessesOptions } from './worker-processes';
export { isSecretName, setSafeAttributes } from './safe-attributes';
export { activeTraceContext } from './trace-context';
