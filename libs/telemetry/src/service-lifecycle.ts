import { fastenLibraryExports } from './fast-exports';
import type { Logger } from './logger';
import { shutdownTelemetry } from './telemetry.lifecycle';

/**
 * Graceful shutdown for a service's main.ts: on the first SIGTERM or SIGINT it runs `stop` (stop accepting, drain,
 * hand over, close connections), flushes telemetry and exits 0; 1 if stopping failed. A hard exit after the grace
 * period keeps a hung dependency from holding a pod in Terminating.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, options: { graceMs?: number } = {}): void {
  const graceMs = options.graceMs ?? 30_000;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, grace_ms: graceMs }, 'shutting down');
    setTimeout(() => process.exit(1), graceMs + 5_000).unref();
    stop()
      .then(() => shutdownTelemetry())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * Runs a service's main; a start-up failure is one line on stderr (config errors name variables, never values). The
 * libraries' exports, all loaded by then, get fast shapes first (fastenLibraryExports).
 */
export function runMain(service: string, main: () => Promise<void>): void {
  fastenLibraryExports();
  main().catch((error: unknown) => {
    process.stderr.write(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
