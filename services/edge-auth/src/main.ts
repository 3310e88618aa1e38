import { loadConfig } from '@gateway/config';
import { createLogger, logListening, runMain, runWorkerProcesses, stopOnSignals } from '@gateway/telemetry';
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { ConfigSchema } from './config';
import { startEdgeAuth } from './server';

runMain('edge-auth', async () => {
  const config = loadConfig('edge-auth', ConfigSchema);
  const logger = createLogger('edge-auth', config.LOG_LEVEL);
  if (config.WORKERS > 1 && cluster.isPrimary) {
    return runWorkerProcesses({
      workers: config.WORKERS,
      hungMs: config.WORKER_HANG_MS,
      startMs: config.WORKER_START_MS,
      logger,
      listen: { port: config.PORT, host: config.HOST, name: 'http' },
    });
  }
  const edge = await startEdgeAuth(config, logger);
  // A worker's primary says where the port is, once a worker serves.
  if (cluster.isPrimary) {
    const { port } = edge.server.address() as AddressInfo;
    logListening(logger, 'http', `http://${config.HOST}:${port}`);
  } else {
    // Until here the primary gave it WORKER_START_MS; from here it hands it connections and watches its event loop
    // (WORKER_HANG_MS).
    logger.info({ event: 'worker_serving', pid: process.pid }, 'worker process serves');
  }
  stopOnSignals(logger, () => edge.stop());
});
