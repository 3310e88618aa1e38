import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { Server, ServerCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { MAX_MESSAGE_BYTES, providerProxyService, type ProviderProxyHandlers } from '@gateway/proto';
import type { Logger } from '@gateway/telemetry';
import { AdapterRegistry } from './adapters/adapter.registry';
import { PROVIDER_PLUGINS } from './adapters/providers';
import type { ProviderProxyConfig } from './config';
import type { ConnectionLister, ConnectionSource } from './credentials/connection.source';
import { CredentialCache } from './credentials/credential.cache';
import { RefreshTokenSweep } from './credentials/refresh-token.sweep';
import { LocalRenewalLease, type RenewalLease } from './credentials/renewal-lease';
import { TokenRenewer } from './credentials/token-renewer';
import { ExchangeStreams } from './grpc/exchange.handler';
import { fetchHandler } from './grpc/fetch.handler';
import { createOpsServer } from './ops/ops.server';
import { createProxyMetrics, type ProxyMetrics } from './ops/proxy.metrics';
import { ProxyService } from './proxy/proxy.service';
import { UndiciUpstreamClient, type UpstreamClient } from './upstream/upstream.client';

/** Name of the service in grpc.health.v1; '' is the whole server. */
export const HEALTH_SERVICE_NAME = 'gateway.provider.v1.ProviderProxy';

export type ServerConfig = Pick<
  ProviderProxyConfig,
  | 'HOST'
  | 'GRPC_PORT'
  | 'HTTP_PORT'
  | 'QPS_QUEUE_LIMIT'
  | 'QPS_MAX_WAIT_MS'
  | 'UPSTREAM_TIMEOUT_MS'
  | 'UPSTREAM_MAX_TIMEOUT_MS'
  | 'UPSTREAM_BODY_TIMEOUT_MS'
  | 'UPSTREAM_MAX_ANSWER_BYTES'
  | 'UPSTREAM_CONNECTIONS'
  | 'UPSTREAM_CONNECT_TIMEOUT_MS'
  | 'UPSTREAM_KEEP_ALIVE_MS'
  | 'CREDENTIAL_CACHE_TTL_MS'
  | 'CREDENTIAL_CACHE_MAX_ENTRIES'
  | 'RENEWAL_LEASE_TTL_MS'
  | 'REFRESH_SWEEP_INTERVAL_MS'
  | 'REFRESH_SWEEP_MARGIN_MS'
  | 'REFRESH_SWEEP_BATCH'
> &
  Record<string, unknown>;

export interface ProviderProxyDependencies {
  config: ServerConfig;
  logger: Logger;
  /** Connections and decrypted credentials (MongoDB through @gateway/store in production). */
  connections: ConnectionSource;
  /** Lists the active connections for the refresh-token sweep; no sweep when absent. */
  connectionLister?: ConnectionLister;
  /** Platform HTTP client; an undici Agent built from the config when absent. */
  upstream?: UpstreamClient;
  metrics?: ProxyMetrics;
  /** Who may renew a connection's tokens; in-process only when absent (one replica). */
  renewalLease?: RenewalLease;
  /** Unix ms for signatures and token expiry; Date.now when absent. */
  now?: () => number;
  /** Extra readiness condition for /readyz (e.g. the MongoDB connection is up). */
  dependenciesReady?: () => boolean;
}

export interface RunningProviderProxy {
  grpcPort: number;
  httpPort: number;
  /** host:port for gRPC clients. */
  grpcAddress: string;
  httpUrl: string;
  metrics: ProxyMetrics;
  /**
   * Stops taking calls, lets in-flight calls finish for up to `graceMs`, then cancels what is left and closes
   * the platform connections and the HTTP listener. Resolves when everything is closed.
   */
  shutdown(graceMs: number): Promise<void>;
}

const SERVER_OPTIONS: ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  // Callers keep long-lived Exchange streams and ping them (PROVIDER_PROXY_CHANNEL_OPTIONS).
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/** Builds the service from its dependencies and listens on both ports; resolves once it takes traffic. */
export async function startProviderProxy(deps: ProviderProxyDependencies): Promise<RunningProviderProxy> {
  const { config, logger } = deps;
  const metrics = deps.metrics ?? createProxyMetrics();
  const upstream =
    deps.upstream ??
    new UndiciUpstreamClient({
      connections: config.UPSTREAM_CONNECTIONS,
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      keepAliveMs: config.UPSTREAM_KEEP_ALIVE_MS,
      bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
    });
  const now = deps.now ?? Date.now;
  const shared = { QPS_QUEUE_LIMIT: config.QPS_QUEUE_LIMIT, QPS_MAX_WAIT_MS: config.QPS_MAX_WAIT_MS, now };
  const adapters = PROVIDER_PLUGINS.flatMap((plugin) => plugin.create(config as never, shared) ?? []);
  const credentials = new CredentialCache(deps.connections, {
    ttlMs: config.CREDENTIAL_CACHE_TTL_MS,
    maxEntries: config.CREDENTIAL_CACHE_MAX_ENTRIES,
  });
  const lease = deps.renewalLease ?? new LocalRenewalLease();
  const renewer = new TokenRenewer({
    source: deps.connections,
    cache: credentials,
    lease,
    now,
    logger,
    leaseExtendMs: Math.max(100, Math.floor(config.RENEWAL_LEASE_TTL_MS / 3)),
    onRenewal: (provider, outcome, exposedMs) => {
      metrics.tokenRenewals.inc({ provider, outcome });
      if (exposedMs !== undefined) metrics.renewalExposure.observe({ provider }, exposedMs / 1000);
    },
  });
  const sweep = deps.connectionLister
    ? new RefreshTokenSweep({
        lister: deps.connectionLister,
        source: deps.connections,
        renewer,
        lease,
        adapters,
        marginMs: config.REFRESH_SWEEP_MARGIN_MS,
        intervalMs: config.REFRESH_SWEEP_INTERVAL_MS,
        batch: config.REFRESH_SWEEP_BATCH,
        logger,
        now,
      })
    : undefined;
  const proxy = new ProxyService({
    registry: new AdapterRegistry(adapters),
    credentials,
    renewer,
    upstream,
    metrics,
    logger,
    defaultTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxTimeoutMs: config.UPSTREAM_MAX_TIMEOUT_MS,
    maxAnswerBytes: config.UPSTREAM_MAX_ANSWER_BYTES,
  });

  const streams = new ExchangeStreams(proxy, metrics, logger);
  const handlers: ProviderProxyHandlers = {
    Fetch: fetchHandler(proxy, {
      maxBodyBytes: Math.min(config.UPSTREAM_MAX_ANSWER_BYTES, MAX_MESSAGE_BYTES - 64 * 1024),
    }),
    Exchange: streams.handler(),
  };
  const grpcServer = new Server(SERVER_OPTIONS);
  grpcServer.addService(providerProxyService(), handlers);
  const health = new HealthImplementation({ '': 'NOT_SERVING', [HEALTH_SERVICE_NAME]: 'NOT_SERVING' });
  health.addToServer(grpcServer);

  let ready = false;
  const dependenciesReady = deps.dependenciesReady ?? (() => true);
  const opsServer = createOpsServer({ registry: metrics.registry, isReady: () => ready && dependenciesReady() });

  let grpcPort: number;
  let httpPort: number;
  try {
    grpcPort = await bindGrpc(grpcServer, config.HOST, config.GRPC_PORT);
    httpPort = await listenHttp(opsServer, config.HOST, config.HTTP_PORT);
  } catch (error) {
    grpcServer.forceShutdown();
    opsServer.close();
    await upstream.destroy();
    throw error;
  }
  health.setStatus('', 'SERVING');
  health.setStatus(HEALTH_SERVICE_NAME, 'SERVING');
  ready = true;
  sweep?.start();

  let stopping: Promise<void> | undefined;
  const shutdown = (graceMs: number) =>
    (stopping ??= (async () => {
      ready = false;
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(HEALTH_SERVICE_NAME, 'NOT_SERVING');
      streams.drain();
      const drained = await withDeadline(
        new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve())),
        graceMs,
      );
      if (!drained) {
        logger.warn({ grace_ms: graceMs, exchange_streams: streams.open }, 'grace period over; cancelling calls');
        grpcServer.forceShutdown();
      }
      // Renewals outlive their callers: their new tokens are stored before the platform connections close.
      await sweep?.stop();
      if (!(await withDeadline(renewer.drain(), graceMs))) logger.error({}, 'token renewals still running at exit');
      if (!(await withDeadline(upstream.close(), 1_000))) await upstream.destroy();
      opsServer.closeAllConnections();
      await new Promise<void>((resolve) => opsServer.close(() => resolve()));
    })());

  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return {
    grpcPort,
    httpPort,
    grpcAddress: `${host}:${grpcPort}`,
    httpUrl: `http://${host}:${httpPort}`,
    metrics,
    shutdown,
  };
}

function bindGrpc(server: Server, host: string, port: number): Promise<number> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

function listenHttp(server: HttpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** True when `promise` settled within `ms`. */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
