import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { loadConfig } from '@gateway/config';
import { CredentialCipher, openStore } from '@gateway/store';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import { ConfigSchema } from './config';
import { StoreConnectionSource } from './credentials/connection.source';
import { NatsRenewalLease } from './credentials/renewal-lease';
import { startProviderProxy } from './server';

runMain('provider-proxy', async () => {
  const config = loadConfig('provider-proxy', ConfigSchema);
  const logger = createLogger('provider-proxy', config.LOG_LEVEL);
  const cipher = CredentialCipher.fromEnv(config.CREDENTIALS_ENCRYPTION_KEYS, config.CREDENTIALS_ACTIVE_KEY_ID);
  // The proxy only reads connections; portal-api owns the collections and their indexes.
  const store = await openStore(config.MONGODB_URI, { cipher, ensureIndexes: false });
  // Token renewals are single-flight across replicas through a lease in NATS JetStream KV.
  const nats = config.NATS_URL
    ? await connect({
        servers: config.NATS_URL,
        name: 'provider-proxy',
        // The renewal leases need NATS back after any outage, however long (the default gives up after 20 s).
        maxReconnectAttempts: -1,
        reconnectTimeWait: 2_000,
      })
    : undefined;
  const renewalLease = nats
    ? await NatsRenewalLease.open(nats, {
        bucket: config.RENEWAL_LEASE_BUCKET,
        holder: `proxy-${randomBytes(6).toString('hex')}`,
        ttlMs: config.RENEWAL_LEASE_TTL_MS,
      })
    : undefined;
  if (!nats) logger.warn({}, 'NATS_URL is not set: token renewals are single-flight within this replica only');
  const connections = new StoreConnectionSource(store.connections);
  const proxy = await startProviderProxy({
    config,
    logger,
    connections,
    connectionLister: connections,
    ...(renewalLease ? { renewalLease } : {}),
    dependenciesReady: () => store.connection.readyState === 1,
  });
  logListening(logger, 'grpc', `grpc://${proxy.grpcAddress}`);
  logListening(logger, 'http', proxy.httpUrl);

  stopOnSignals(
    logger,
    async () => {
      await proxy.shutdown(config.SHUTDOWN_GRACE_MS);
      await nats?.drain().catch((error: unknown) => logger.warn({ err: error }, 'draining NATS failed'));
      await store.close().catch((error: unknown) => logger.warn({ err: error }, 'closing MongoDB failed'));
    },
    { graceMs: config.SHUTDOWN_GRACE_MS },
  );
});
