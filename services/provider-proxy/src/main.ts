import { loadConfig } from '@gateway/config';
import { CredentialCipher, openStore } from '@gateway/store';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import { ConfigSchema } from './config';
import { StoreConnectionSource } from './credentials/connection.source';
import { startProviderProxy } from './server';

runMain('provider-proxy', async () => {
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

  stopOnSignals(
    logger,
    async () => {
      await proxy.shutdown(config.SHUTDOWN_GRACE_MS);
      await store.close().catch((error: unknown) => logger.warn({ err: error }, 'closing MongoDB failed'));
    },
    { graceMs: config.SHUTDOWN_GRACE_MS },
  );
});
