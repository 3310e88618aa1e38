import { freePort } from '@gateway/testing';
import { startDaemon, waitFor } from '../lib/process';

export interface GubernatorBaseline {
  grpcAddress: string;
  httpOrigin: string;
  stop(): Promise<void>;
}

/**
 * One Gubernator instance on loopback, alone in its member list (it is its own known node), with a cache large
 * enough for every key. It gets both cores like every other process here (GOMAXPROCS unset).
 */
export async function startGubernator(binary: string, options: { keys: number }): Promise<GubernatorBaseline> {
  const [grpcPort, httpPort, memberPort] = [await freePort(), await freePort(), await freePort()];
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const httpOrigin = `http://127.0.0.1:${httpPort}`;
  const daemon = startDaemon(binary, [], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GUBER_GRPC_ADDRESS: grpcAddress,
      GUBER_HTTP_ADDRESS: `127.0.0.1:${httpPort}`,
      GUBER_ADVERTISE_ADDRESS: grpcAddress,
      GUBER_PEER_DISCOVERY_TYPE: 'member-list',
      GUBER_MEMBERLIST_ADDRESS: `127.0.0.1:${memberPort}`,
      // Older releases (v2.13) listen on the bind address only; without it the node never joins itself.
      GUBER_MEMBERLIST_BIND_ADDRESS: `127.0.0.1:${memberPort}`,
      GUBER_MEMBERLIST_KNOWN_NODES: `127.0.0.1:${memberPort}`,
      GUBER_CACHE_SIZE: String(Math.max(50_000, options.keys * 2)),
      GUBER_LOG_LEVEL: 'warn',
      // Like our services in the benchmark: no trace exporter (its default would be OTLP to localhost).
      OTEL_TRACES_EXPORTER: 'none',
    },
  });
  try {
    await waitFor(
      async () => {
        if (daemon.child.exitCode !== null) return false;
        const health = (await (await fetch(`${httpOrigin}/v1/HealthCheck`)).json()) as { status?: string };
        return health.status === 'healthy';
      },
      20_000,
      'gubernator did not report healthy',
    );
  } catch (error) {
    await daemon.stop();
    throw new Error(`${(error as Error).message}: ${daemon.output().slice(-10).join('\n')}`);
  }
  return { grpcAddress, httpOrigin, stop: () => daemon.stop() };
}
