import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

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
