import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { core } from '@opentelemetry/sdk-node';
import { planTelemetry } from './otel-env.config';
import { isCallSuppressed, quietInstrumentations } from './sdk.start';

describe('the undici instrumentation hook', () => {
  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  it('leaves alone exactly the calls made with tracing suppressed, as provider-proxy makes its platform calls', async () => {
    expect(isCallSuppressed()).toBe(false);
    const inside = await context.with(core.suppressTracing(ROOT_CONTEXT), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return isCallSuppressed();
    });
    expect(inside).toBe(true);
    expect(isCallSuppressed()).toBe(false);
  });
});

describe('the instrumentations left off', () => {
  const RUNTIME = '@opentelemetry/instrumentation-runtime-node';

  it('leaves the runtime metrics instrumentation off when only traces are exported', () => {
    const quiet = quietInstrumentations(planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }));
    expect(quiet[RUNTIME]).toEqual({ enabled: false });
    expect(quiet['@opentelemetry/instrumentation-fs']).toEqual({ enabled: false });
  });

  it('keeps it when OTel metrics are exported', () => {
    const plan = planTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_METRICS_EXPORTER: 'otlp' });
    expect(quietInstrumentations(plan)[RUNTIME]).toBeUndefined();
  });

  it('sets nothing when the operator lists the instrumentations (OTEL_NODE_ENABLED_INSTRUMENTATIONS): the list decides', () => {
    const plan = planTelemetry({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,runtime-node',
    });
    expect(quietInstrumentations(plan)).toEqual({});
  });
});
