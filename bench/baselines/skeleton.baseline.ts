import { join } from 'node:path';
import { firstLineOf, startDaemon, type Daemon } from '../lib/process';

export interface SkeletonBaseline {
  origin: string;
  /** The process ids of the skeleton's three processes, for tools that watch them (bench:perf). */
  pids: { edge: number; proxy: number; decider: number };
  stop(): Promise<void>;
}

/**
 * The gateway's design with none of its logic: an HTTP server that batches each event-loop turn's requests into one
 * NATS request to a decider that admits everything, then each turn's admitted requests into one message on a gRPC
 * stream to a proxy that calls the sandbox with the platform token over kept-alive connections (the
 * skeleton-*.server.cjs files). It is the floor the design card sets: three Node processes and NATS, each hop read
 * and written once. The gateway's path against it says what the gateway's own work costs; nginx says what the
 * design costs.
 */
export async function startSkeleton(options: {
  natsUrl: string;
  upstream: URL;
  token: string;
  /** Extra variables for each of its processes, as BENCH_*_ENV gives the gateway's (NODE_OPTIONS for bench:perf). */
  env?: Record<string, string>;
}): Promise<SkeletonBaseline> {
  const subject = `bench.skeleton.${process.pid}.decide`;
  const started: Daemon[] = [];
  const start = async (script: string, env: Record<string, string>) => {
    const daemon = startDaemon(process.execPath, [join(__dirname, script)], {
      env: { ...process.env, ...options.env, ...env },
    });
    started.push(daemon);
    return firstLineOf(daemon, 15_000);
  };
  const stop = async () => {
    await Promise.all(started.map((daemon) => daemon.stop()));
  };
  try {
    await start('skeleton-decider.server.cjs', { SKELETON_NATS_URL: options.natsUrl, SKELETON_SUBJECT: subject });
    const proxyPort = await start('skeleton-proxy.server.cjs', {
      SKELETON_UPSTREAM: options.upstream.origin,
      SKELETON_TOKEN: options.token,
    });
    const edgePort = await start('skeleton-edge.server.cjs', {
      SKELETON_NATS_URL: options.natsUrl,
      SKELETON_SUBJECT: subject,
      SKELETON_PROXY_ADDRESS: `127.0.0.1:${Number(proxyPort)}`,
    });
    const [decider, proxy, edge] = started.map((daemon) => daemon.child.pid!);
    return {
      origin: `http://127.0.0.1:${Number(edgePort)}`,
      pids: { edge: edge!, proxy: proxy!, decider: decider! },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
