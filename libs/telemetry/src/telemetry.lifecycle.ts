import { diag } from '@opentelemetry/api';

/**
 * The running SDK lives on a global slot, not in a module variable: register.ts is loaded by path (or as
 * `@gateway/telemetry/register`) before the app, and the app reaches `shutdownTelemetry` through
 * `@gateway/telemetry`; both must see the same SDK even if the two paths give two module instances.
 */
const SLOT = Symbol.for('@gateway/telemetry.sdk');

interface RunningTelemetry {
  shutdown: () => Promise<void>;
  stopped?: Promise<void>;
}

type GlobalWithSlot = typeof globalThis & { [SLOT]?: RunningTelemetry };

function running(): RunningTelemetry | undefined {
  return (globalThis as GlobalWithSlot)[SLOT];
}

export function isTelemetryStarted(): boolean {
  return running() !== undefined;
}

/**
 * Flushes buffered spans and stops the SDK; call it last in a graceful shutdown, after the servers have
 * drained, so the spans of the last requests are exported. Idempotent, never rejects, and resolves at once
 * when telemetry was not started. The wait is bounded by OTEL_EXPORTER_OTLP_TIMEOUT (10 s by default).
 */
export function shutdownTelemetry(): Promise<void> {
  const telemetry = running();
  if (telemetry === undefined) return Promise.resolve();
  telemetry.stopped ??= telemetry.shutdown().catch((error: unknown) => {
    diag.error('telemetry shutdown failed', error);
  });
  return telemetry.stopped;
}

function onSignal(signal: NodeJS.Signals): void {
  // A service with its own handler drains first and calls shutdownTelemetry() at the end; stopping the SDK
  // now would drop the spans of the requests still being drained.
  if (process.listenerCount(signal) > 1) return;
  // Nobody else handles it: flush, then let the signal do what it would have done without us (terminate),
  // since a listener alone would keep the process alive.
  void shutdownTelemetry().finally(() => {
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.kill(process.pid, signal);
  });
}

/** Records the running SDK and flushes it on SIGTERM/SIGINT (when the app does not handle them) and beforeExit. */
export function registerRunningTelemetry(shutdown: () => Promise<void>): void {
  (globalThis as GlobalWithSlot)[SLOT] = { shutdown };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.once('beforeExit', () => void shutdownTelemetry());
}
