import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startOtlpReceiver, type OtlpReceipts } from './otlp-receiver';

/** How the Helm chart has a service export its traces once an OTLP endpoint is given (charts/gateway/values.yaml). */
export interface ChartTracing {
  protocol: string;
  sampler: string;
  samplerArg: string;
}

/** The chart's own defaults, read from its values file, so that the bench runs what the chart ships. */
export function chartTracing(repoRoot: string): ChartTracing {
  const values = parse(readFileSync(join(repoRoot, 'charts', 'gateway', 'values.yaml'), 'utf8')) as {
    opentelemetry?: Partial<Record<keyof ChartTracing, unknown>> & { enabled?: unknown };
  };
  const otel = values.opentelemetry ?? {};
  const text = (name: keyof ChartTracing) => {
    const value = otel[name];
    if (typeof value !== 'string' || value === '') throw new Error(`charts/gateway/values.yaml: opentelemetry.${name}`);
    return value;
  };
  if (otel.enabled !== true) throw new Error('charts/gateway/values.yaml: opentelemetry.enabled is not true');
  return { protocol: text('protocol'), sampler: text('sampler'), samplerArg: text('samplerArg') };
}

/**
 * The variables that make a service run traced as the chart runs it (the OTEL_* of charts/gateway/templates/
 * _helpers.tpl, with the images' `--require` of the preload), exporting to `endpoint`.
 */
export function tracedServiceEnv(
  service: string,
  endpoint: string,
  tracing: ChartTracing,
  repoRoot: string,
): Record<string, string> {
  return {
    NODE_OPTIONS: `--require ${join(repoRoot, 'libs', 'telemetry', 'dist', 'register.js')}`,
    OTEL_SERVICE_NAME: service,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: tracing.protocol,
    OTEL_TRACES_SAMPLER: tracing.sampler,
    OTEL_TRACES_SAMPLER_ARG: tracing.samplerArg,
  };
}

/** The variables the bench environment adds to every process of one kind (bench-environment.ts). */
export type ServiceVariable = 'BENCH_EDGE_ENV' | 'BENCH_PROXY_ENV' | 'BENCH_ACTOR_ENV';

export const SERVICE_VARIABLES: [ServiceVariable, 'edge-auth' | 'provider-proxy' | 'quota-actor'][] = [
  ['BENCH_EDGE_ENV', 'edge-auth'],
  ['BENCH_PROXY_ENV', 'provider-proxy'],
  ['BENCH_ACTOR_ENV', 'quota-actor'],
];

/**
 * Adds variables to those the bench environment gives one kind of process: NODE_OPTIONS are joined, so that a flag
 * set before (bench:perf's JIT names) and the preload of --telemetry both stay.
 */
export function addServiceEnv(variable: ServiceVariable, added: Record<string, string>): void {
  const extra = JSON.parse(process.env[variable] || '{}') as Record<string, string>;
  for (const [name, value] of Object.entries(added)) {
    extra[name] = name === 'NODE_OPTIONS' ? [extra.NODE_OPTIONS, value].filter(Boolean).join(' ') : value;
  }
  process.env[variable] = JSON.stringify(extra);
}

/** Has the bench environment start edge-auth, provider-proxy and the quota-actor of `repoRoot` traced. */
export function traceServices(endpoint: string, tracing: ChartTracing, repoRoot: string): void {
  for (const [variable, service] of SERVICE_VARIABLES) {
    addServiceEnv(variable, tracedServiceEnv(service, endpoint, tracing, repoRoot));
  }
}

/** A bench run whose services are traced as the chart ships them, exporting to a receiver in the bench process. */
export interface ChartTracedRun {
  tracing: ChartTracing;
  endpoint: string;
  /** The settings and what was exported so far, as the reports keep them. */
  receipts(): ChartTracing & OtlpReceipts;
  close(): Promise<void>;
}

/**
 * Starts the receiver and has the bench environment start edge-auth, provider-proxy and the quota-actor of `repoRoot`
 * traced (traceServices): what `--telemetry` does in bench, bench:perf and bench:builds.
 */
export async function traceAsTheChart(repoRoot: string, log: (message: string) => void): Promise<ChartTracedRun> {
  const tracing = chartTracing(repoRoot);
  const receiver = await startOtlpReceiver();
  log(`telemetry: ${tracing.sampler} ${tracing.samplerArg}, ${tracing.protocol} to ${receiver.endpoint}`);
  traceServices(receiver.endpoint, tracing, repoRoot);
  return {
    tracing,
    endpoint: receiver.endpoint,
    receipts: () => ({ ...tracing, ...receiver.receipts() }),
    close: () => receiver.close(),
  };
}

/** What a report says of a run traced as the chart ships it: the settings and the volume exported. */
export function tracedRunLine(telemetry: ChartTracing & OtlpReceipts): string {
  return (
    `Traced as the chart ships it (${telemetry.sampler} ${telemetry.samplerArg}, ${telemetry.protocol}): ` +
    `${telemetry.exports} trace exports of ${Math.round(telemetry.bytes / 1024)} KiB in all, warm-up included.`
  );
}
