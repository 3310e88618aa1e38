import { loadConfig } from '@gateway/config';
import { createLogger, logListening, runMain, stopOnSignals } from '@gateway/telemetry';
import type { AddressInfo } from 'node:net';
import { ConfigSchema } from './config';
import { startMcpService } from './server';

runMain('mcp-server', async () => {
  const config = loadConfig('mcp-server', ConfigSchema);
  const logger = createLogger('mcp-server', config.LOG_LEVEL);
  const mcp = await startMcpService(config, logger);
  const { port } = mcp.server.address() as AddressInfo;
  logListening(logger, 'http', `http://${config.HOST}:${port}`);
  logger.info({ mcp_url: mcp.publicUrl }, 'MCP endpoint ready');
  stopOnSignals(logger, () => mcp.stop());
});
