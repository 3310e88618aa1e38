import { loadConfig } from '@gateway/config';
import { OAuthGrantRepository, openStore } from '@gateway/store';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import type { AddressInfo } from 'node:net';
import { API_KEYS_ONLY } from './auth/access-token.verifier';
import { StoredAccessTokenVerifier } from './auth/stored-access-token.verifier';
import { ConfigSchema } from './config';
import { startMcpService } from './server';

runMain('mcp-server', async () => {
  const config = loadConfig('mcp-server', ConfigSchema);
  const logger = createLogger('mcp-server', config.LOG_LEVEL);
  // OAuth access tokens are oauth-server's, looked up by hash; oauth-server creates the collection and indexes.
  const store = config.MONGODB_URI ? await openStore(config.MONGODB_URI, { ensureIndexes: false }) : undefined;
  const verifier = store
    ? new StoredAccessTokenVerifier(new OAuthGrantRepository(store.connection), {
        cacheMs: config.OAUTH_TOKEN_CACHE_MS,
      })
    : API_KEYS_ONLY;
  if (!store) logger.warn('MONGODB_URI is not set: only API keys are accepted, OAuth access tokens are not');
  const mcp = await startMcpService(config, logger, { verifier });
  const { port } = mcp.server.address() as AddressInfo;
  logListening(logger, 'http', `http://${config.HOST}:${port}`);
  logger.info({ mcp_url: mcp.publicUrl }, 'MCP endpoint ready');
  stopOnSignals(logger, async () => {
    await mcp.stop();
    await store?.close();
  });
});
