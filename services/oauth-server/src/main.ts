import { loadConfig } from '@gateway/config';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import { ConfigSchema } from './config';
import { startOAuthServer } from './server';

runMain('oauth-server', async () => {
  const config = loadConfig('oauth-server', ConfigSchema);
  const logger = createLogger('oauth-server', config.LOG_LEVEL);
  const oauth = await startOAuthServer(config, logger);
  logListening(logger, 'http', oauth.url);
  logger.info({ issuer: oauth.issuer }, 'OAuth authorization server ready');
  stopOnSignals(logger, () => oauth.stop());
});
