import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { serveClusterMetrics } from './cluster-metrics';
import { ConnectionDispatcher } from './connection-handoff';
import { logListening, type Logger } from './logger';
import { watchWorkerLiveness } from './worker-liveness';

export interface WorkerProcessesOptions {
  workers: number;
  logger: Logger;
  /** The service's port: the primary listens and hands each connection to a worker (serveHandedConnections). */
  listen: { port: number; host: string; name: string };
  /** How long the workers get to drain after SIGTERM before they are killed; default 30 s. */
  graceMs?: number;
  /** More unplanned worker exits than this within a minute end the primary (the orchestrator restarts the pod). */
  maxRestartsPerMinute?: number;
  /**
   * A worker whose event loop answers nothing for this long is killed and replaced; default 10 s. From a fifth of it
   * (at most 2 s) on, it is handed no new connection.
   */
  hungMs?: number;
  /**
   * A worker that has not served this long after it was forked (it hangs while it starts) is killed and replaced;
   * default 60 s.
   */
  startMs?: number;
}

/**
 * The primary of a service run as several worker processes (node:cluster) serving one port, so one pod uses every
 * core it has: listens and hands the connections to the workers (ConnectionDispatcher), forks the workers, replaces
 * one that dies or stops answering (watchWorkerLiveness), answers their metrics requests with the sum of all
 * (clusterMetricsHandler), and on SIGTERM or SIGINT stops accepting, passes the signal on and exits once every worker
 * has drained. It says it listens once a worker serves.
 */
export function runWorkerProcesses(options: WorkerProcessesOptions): void {
  const { logger, workers } = options;
  const graceMs = options.graceMs ?? 30_000;
  const maxRestarts = options.maxRestartsPerMinute ?? 5;
  const restarts: number[] = [];
  let stopping = false;

  serveClusterMetrics();
  const dispatcher = new ConnectionDispatcher();
  dispatcher.server.on('error', (error) => {
    // Once listening, an error is one connection's that could not be accepted (out of descriptors, say).
    if (dispatcher.server.listening) return logger.warn({ err: error }, 'a connection could not be accepted');
    logger.error({ err: error }, `could not listen on ${options.listen.host}:${options.listen.port}`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    process.exit(1);
  });
  dispatcher.onceServing(() => {
    dispatcher.server.listen(options.listen.port, options.listen.host, () => {
      const { port } = dispatcher.server.address() as AddressInfo;
      logListening(logger, options.listen.name, `http://${options.listen.host}:${port}`);
    });
  });
  const hungMs = options.hungMs ?? 10_000;
  watchWorkerLiveness({
    everyMs: Math.max(50, Math.min(1_000, hungMs / 10)),
    lateMs: Math.min(2_000, hungMs / 5),
    hungMs,
    startMs: options.startMs ?? 60_000,
    onLate: (worker, late) => {
      dispatcher.setLate(worker, late);
      logger.warn(
        { pid: worker.process.pid, late },
        late ? 'worker process is late to answer' : 'worker process answers again',
      );
    },
    onHung: (worker, silentMs) => {
      logger.error({ pid: worker.process.pid, silentMs }, 'worker process answers nothing; ending it');
      worker.process.kill('SIGKILL');
    },
  });
  const fork = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info('stopped');
        process.exit(0);
      }
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
    logger.error({ pid: worker.process.pid, code, signal }, 'worker process ended; starting another');
    if (restarts.length > maxRestarts) {
      logger.error({ restarts: restarts.length }, 'workers keep ending; the primary stops');
      process.exit(1);
    }
    setTimeout(fork, 500).unref();
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    dispatcher.close();
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'shutting down');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, graceMs + 5_000).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers }, 'starting worker processes');
  for (let i = 0; i < workers; i++) fork();
}
