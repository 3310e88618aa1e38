import { loadConfig } from '@gateway/config';
import { createLogger, logListening, shutdownTelemetry } from '@gateway/telemetry';
import type { AddressInfo } from 'node:net';
import { ConfigSchema } from './config';
import { startEdgeAuth } from './server';

async function main(): Promise<void> {
  const config = loadConfig('edge-auth', ConfigSchema);
  const logger = createLogger('edge-auth', config.LOG_LEVEL);
  const edge = await startEdgeAuth(config, logger);
  const { port } = edge.server.address() as AddressInfo;
  logListening(logger, 'http', `http://${config.HOST}:${port}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    edge
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
