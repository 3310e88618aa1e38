import { loadConfig } from '@gateway/config';
import { createLogger, logListening, shutdownTelemetry } from '@gateway/telemetry';
import type { AddressInfo } from 'node:net';
import { ConfigSchema } from './config';
import { startQuotaActor } from './server';

async function main(): Promise<void> {
  const config = loadConfig('quota-actor', ConfigSchema);
  const logger = createLogger('quota-actor', config.LOG_LEVEL);
  const actor = await startQuotaActor(config, logger);
  const { port } = actor.http.address() as AddressInfo;
  logListening(logger, 'http', `http://${config.HOST}:${port}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'handing over partitions');
    actor
      .stop()
      .then(() => shutdownTelemetry())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
