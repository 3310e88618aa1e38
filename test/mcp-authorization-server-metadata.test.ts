import { closedPort, startGatewayCluster, type GatewayCluster, type RunningService } from '@gateway/testing';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { rawRequest, startOAuthWithMcp, testDatabaseUri, testNatsUrl } from './harness';

/**
 * The authorization server's metadata at the MCP origin: MCP clients that look for
 * /.well-known/oauth-authorization-server (RFC 8414) at the MCP server's origin, rather than at the issuer named in
 * the protected-resource metadata (RFC 9728), get oauth-server's own document; a real oauth-server and mcp-server.
 */
let cluster: GatewayCluster;
let oauth: RunningService;
let mcpUrl: string;
let unreachableMcp: RunningService;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  ({ oauth, mcpUrl } = await startOAuthWithMcp(cluster, {
    mongoUri,
    natsUrl: testNatsUrl(),
    oauthEnv: {
      CHAT_ASSISTANT_CLIENT_ID: 'chat-assistant',
      CHAT_ASSISTANT_REDIRECT_URIS: 'https://chat.assistant.test/api/mcp/auth_callback',
      SECOND_ASSISTANT_CLIENT_ID: 'second-assistant',
      SECOND_ASSISTANT_REDIRECT_PREFIX: 'https://second.assistant.test/connector/oauth/',
    },
  }));
  // An authorization server nobody listens on.
  unreachableMcp = await cluster.startMcp({ AUTHORIZATION_SERVER_URL: `http://127.0.0.1:${await closedPort()}` });
}, 180_000);

afterAll(async () => {
  await oauth?.stop();
  await cluster?.stop();
});

async function json(url: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe('MCP - the authorization server metadata at the MCP origin', () => {
  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    'serves the same document as oauth-server at %s',
    async (path) => {
      const atIssuer = await json(`${oauth.url}${path}`);
      const atMcp = await json(new URL(path, mcpUrl).href);
      expect(atIssuer.status).toBe(200);
      expect(atMcp.status).toBe(200);
      expect(atMcp.body).toEqual(atIssuer.body);
      expect(atMcp.body).toMatchObject({ issuer: oauth.url, token_endpoint: `${oauth.url}/token` });
      expect(atMcp.headers.get('content-type')).toMatch(/^application\/json/);
      expect(atMcp.headers.get('access-control-allow-origin')).toBe('*');
    },
  );

  it("gives the MCP SDK's discovery at the MCP origin oauth-server's endpoints", async () => {
    const metadata = await discoverAuthorizationServerMetadata(new URL(mcpUrl).origin);
    expect(metadata).toMatchObject({
      issuer: oauth.url,
      authorization_endpoint: `${oauth.url}/authorize`,
      token_endpoint: `${oauth.url}/token`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('checks the Host header there too (DNS-rebinding protection)', async () => {
    const response = await rawRequest(new URL(mcpUrl).origin, '/.well-known/oauth-authorization-server', {
      headers: { Host: 'evil.example' },
    });
    expect(response.status).toBe(403);
  });

  it('answers 502 problem+json when the authorization server cannot be reached', async () => {
    const response = await fetch(`${unreachableMcp.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 502, code: 'platform_unreachable' });
  });
});
