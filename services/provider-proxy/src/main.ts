import { loadConfig } from '@gateway/config';
import { CredentialCipher, openStore } from '@gateway/store';
import { createLogger, logListening, shutdownTelemetry } from '@gateway/telemetry';
import { ConfigSchema } from './config';
import { StoreConnectionSource } from './credentials/connection.source';
import { startProviderProxy } from './server';

async function main(): Promise<void> {
  const config = loadConfig('provider-proxy', ConfigSchema);
  const logger = createLogger('provider-proxy', config.LOG_LEVEL);
  const cipher = CredentialCipher.fromEnv(config.CREDENTIALS_ENCRYPTION_KEYS, config.CREDENTIALS_ACTIVE_KEY_ID);
  // The proxy only reads connections; portal-api owns the collections and their indexes.
  const store = await openStore(config.MONGODB_URI, { cipher, ensureIndexes: false });
  const proxy = await startProviderProxy({
    config,
    logger,
    connections: new StoreConnectionSource(store.connections),
    dependenciesReady: () => store.connection.readyState === 1,
  });
  logListening(logger, 'grpc', `grpc://${proxy.grpcAddress}`);
  logListening(logger, 'http', proxy.httpUrl);

  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal, grace_ms: config.SHUTDOWN_GRACE_MS }, 'shutting down');
    // Whatever hangs past the grace period plus a margin must not keep the pod from terminating.
    setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS + 5_000).unref();
    void (async () => {
      await proxy.shutdown(config.SHUTDOWN_GRACE_MS);
      await store.close().catch((error: unknown) => logger.warn({ err: error }, 'closing MongoDB failed'));
      await shutdownTelemetry();
      logger.info('stopped');
      process.exit(0);
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  // ConfigError and CredentialCipherError name variables and key ids only, never values.
  process.stderr.write(`provider-proxy failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
