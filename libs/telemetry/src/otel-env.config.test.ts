import { planTelemetry } from './otel-env.config';

describe('planTelemetry', () => {
  it('starts nothing when no exporter and no endpoint are configured, so nothing polls localhost:4318', () => {
    expect(planTelemetry({ OTEL_SERVICE_NAME: 'edge-auth' })).toMatchObject({
      start: false,
      traces: false,
      metrics: false,
      logs: false,
    });
  });

  it('exports traces, and only traces, once a collector endpoint is configured', () => {
    expect(planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' })).toMatchObject({
      start: true,
      traces: true,
      metrics: false,
      logs: false,
    });
    expect(planTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).traces).toBe(true);
  });

  it('follows an explicit exporter choice, none included', () => {
    expect(planTelemetry({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ start: true, traces: true });
    expect(planTelemetry({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject(
      { start: false, traces: false },
    );
    expect(planTelemetry({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_LOGS_EXPORTER: 'otlp' })).toMatchObject({
      start: true,
      traces: false,
      metrics: true,
      logs: true,
    });
    expect(planTelemetry({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' }).metrics).toBe(true);
  });

  it('starts nothing when OTEL_SDK_DISABLED is true, whatever else is set', () => {
    expect(planTelemetry({ OTEL_SDK_DISABLED: ' TRUE ', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).start).toBe(
      false,
    );
    expect(planTelemetry({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).start).toBe(
      true,
    );
  });

  it('treats empty variables as unset', () => {
    expect(planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_TRACES_EXPORTER: '' }).start).toBe(false);
  });

  it('leaves the choice of instrumentations to OTEL_NODE_ENABLED_INSTRUMENTATIONS when it is set', () => {
    expect(planTelemetry({}).instrumentationsFromEnv).toBe(false);
    expect(planTelemetry({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,fs' }).instrumentationsFromEnv).toBe(true);
  });

  it('exports spans in batches of 64 unless the environment sets its own size, and sets nothing without traces', () => {
    const endpoint = 'http://c:4318';
    expect(planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).sdkDefaults).toEqual({
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64',
    });
    expect(
      planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512' }).sdkDefaults,
    ).toEqual({});
    expect(
      planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: ' ' }).sdkDefaults,
    ).toEqual({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64' });
    expect(planTelemetry({ OTEL_METRICS_EXPORTER: 'otlp' }).sdkDefaults).toEqual({});
  });
});
