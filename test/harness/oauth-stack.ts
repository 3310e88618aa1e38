import { startService, withFreePort, type GatewayCluster, type RunningService } from '@gateway/testing';

/**
 * oauth-server and an mcp-server that name each other, on a cluster's NATS, actors and database. The MCP port is
 * chosen first, so oauth-server knows its resource (the token audience) before mcp-server runs; should another
 * process take that port meanwhile, both start again on another one.
 */
export function startOAuthWithMcp(
  cluster: GatewayCluster,
  options: { mongoUri: string; natsUrl: string; oauthEnv: Record<string, string>; mcpEnv?: Record<string, string> },
): Promise<{ oauth: RunningService; mcpUrl: string }> {
  return withFreePort(async (mcpPort) => {
    const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const oauth = await startService(
      'oauth-server',
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        MONGODB_URI: options.mongoUri,
        NATS_URL: options.natsUrl,
        PARTITIONS: cluster.sharedEnv.PARTITIONS!,
        SUBJECT_PREFIX: cluster.sharedEnv.SUBJECT_PREFIX!,
        MCP_RESOURCE_URL: mcpUrl,
        ...options.oauthEnv,
      },
      { listeners: ['http'], timeoutMs: 60_000 },
    );
    try {
      await cluster.startMcp({
        PORT: String(mcpPort),
        AUTHORIZATION_SERVER_URL: oauth.url,
        MONGODB_URI: options.mongoUri,
        ...options.mcpEnv,
      });
    } catch (error) {
      await oauth.stop();
      throw error;
    }
    return { oauth, mcpUrl };
  });
}
