import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import { loadPortalConfig } from './config';
import { startPortal } from './server';

runMain('portal-api', async () => {
  const config = loadPortalConfig();
  const logger = createLogger('portal-api', config.LOG_LEVEL);
  const portal = await startPortal(config, logger);
  logListening(logger, 'http', portal.url);
  stopOnSignals(logger, () => portal.stop());
});
