import { loadConfig } from '@gateway/config';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import type { AddressInfo } from 'node:net';
import { ConfigSchema } from './config';
import { startQuotaActor } from './server';

runMain('quota-actor', async () => {
  const config = loadConfig('quota-actor', ConfigSchema);
  const logger = createLogger('quota-actor', config.LOG_LEVEL);
  const actor = await startQuotaActor(config, logger);
  const { port } = actor.http.address() as AddressInfo;
  logListening(logger, 'http', `http://${config.HOST}:${port}`);
  // SIGTERM hands every partition over: usage written, reservations shrunk, leases released.
  stopOnSignals(logger, () => actor.stop());
});
