import { loadConfig } from '@gateway/config';
import { createLogger, logListening } from '@gateway/telemetry';
import { ConfigSchema } from './config';
import { createSandboxServer } from './server';

async function main(): Promise<void> {
  const config = loadConfig('platform-sandbox', ConfigSchema);
  const logger = createLogger('platform-sandbox', config.LOG_LEVEL);
  const sandbox = createSandboxServer(config, { logger });
  const url = await sandbox.listen();
  logger.info(
    {
      modules: sandbox.modules.map((platform) => platform.name),
      latency_ms: config.SANDBOX_LATENCY_MS,
      control: sandbox.requestLog !== undefined,
    },
    'platform sandbox ready',
  );
  logListening(logger, 'platform-sandbox', url);

  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
