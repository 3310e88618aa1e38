/**
 * Preloaded before any service code, so that the instrumented modules (http, express, grpc, mongodb, …) are
 * patched before the service requires them:
 *   development: node --conditions=development --import tsx --import ./libs/telemetry/src/register.ts services/x/src/main.ts
 *   production:  node --require @gateway/telemetry/register dist/main.js
 * Configured only by the standard OTEL_* variables; see planTelemetry for the defaults that differ from the
 * SDK's. Services call shutdownTelemetry() (from @gateway/telemetry) at the end of their graceful shutdown.
 */
import { planTelemetry } from './otel-env.config';
import { isTelemetryStarted } from './telemetry.lifecycle';

const plan = planTelemetry(process.env);
if (plan.start && !isTelemetryStarted()) {
  // Required here rather than imported at the top: the SDK and its instrumentations take over a second to
  // load, which a disabled or export-less process should not pay.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTelemetry } = require('./sdk.start') as typeof import('./sdk.start');
  startTelemetry(plan);
}
