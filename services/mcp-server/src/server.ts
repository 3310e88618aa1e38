import { connectNats, DecisionClient, failFastWhileDisconnected } from '@gateway/decisions';
import { createProviderCaller, type ProviderCaller } from '@gateway/proto';
import { createClientAddressResolver, hashApiKey, isWellFormedApiKey } from '@gateway/store';
import {
  createCounter,
  createMetrics,
  drainHttpServer,
  httpRequestDuration,
  metricsHandler,
  type Logger,
} from '@gateway/telemetry';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from 'nats';
import { API_KEYS_ONLY, type AccessTokenVerifier } from './auth/access-token.verifier';
import {
  AUTHORIZATION_SERVER_METADATA_PATHS,
  authorizationServerMetadataHandler,
  authorizationServerMetadataUrl,
  CachedMetadata,
} from './auth/authorization-server-metadata';
import { protectedResourceMetadata, type ProtectedResource } from './auth/protected-resource';
import type { Config } from './config';
import { defaultAllowedHosts, dnsRebindingGuard } from './http/dns-rebinding.guard';
import { mcpPostHandlers, methodNotAllowed } from './http/mcp.handler';
import { EndpointIndex } from './suggest/endpoint.index';
import { OpenAiCompatibleModel } from './suggest/llm.client';
import type { ToolDeps } from './tools/tool-context';

export interface McpService {
  server: Server;
  /** The MCP URL ({mcp_url}): PUBLIC_URL, or the bound address with MCP_PATH. */
  publicUrl: string;
  stop(): Promise<void>;
}

export interface McpServiceOptions {
  /** How OAuth access tokens are verified; API keys only until the OAuth server plugs in its verifier. */
  verifier?: AccessTokenVerifier;
  now?: () => Date;
}

/** Builds and starts the MCP endpoint: /mcp, the protected-resource metadata, health and metrics. */
export async function startMcpService(
  config: Config,
  logger: Logger,
  options: McpServiceOptions = {},
): Promise<McpService> {
  const registry = createMetrics('mcp-server');
  const duration = httpRequestDuration(registry);
  const toolCalls = createCounter<'tool' | 'outcome'>(registry, {
    name: 'mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok or the tool error code).',
    labelNames: ['tool', 'outcome'],
  });

  const nc: NatsConnection = await connectNats(config.NATS_URL, 'mcp-server');
  const decisions = failFastWhileDisconnected(
    new DecisionClient(nc, {
      partitions: config.PARTITIONS,
      subjectPrefix: config.SUBJECT_PREFIX,
      retryBudgetMs: config.DECISION_BUDGET_MS,
      holdRefusals: config.HOLD_REFUSALS,
    }),
    nc,
  );
  const caller: ProviderCaller = createProviderCaller({
    transport: config.PROVIDER_PROXY_TRANSPORT,
    address: config.PROVIDER_PROXY_ADDRESS,
    streams: config.PROVIDER_PROXY_STREAMS,
  });

  // Listen first: without PUBLIC_URL (development, tests) the MCP URL is the bound address.
  const server = createServer();
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const { port } = server.address() as AddressInfo;
  const publicUrl =
    config.PUBLIC_URL ??
    `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}${config.MCP_PATH}`;
  const resource: ProtectedResource = {
    resource: publicUrl,
    ...(config.AUTHORIZATION_SERVER_URL ? { authorizationServer: config.AUTHORIZATION_SERVER_URL } : {}),
    scopes: config.OAUTH_SCOPES,
  };
  if (!config.AUTHORIZATION_SERVER_URL) {
    logger.warn('AUTHORIZATION_SERVER_URL is not set: the protected-resource metadata names no authorization server');
  }
  const anonymousKey = config.NODE_ENV === 'test' ? config.MCP_ANONYMOUS_KEY : undefined;
  if (anonymousKey !== undefined && !isWellFormedApiKey(anonymousKey)) {
    throw new Error('MCP_ANONYMOUS_KEY is not a well-formed API key');
  }

  const tools: ToolDeps = {
    decisions,
    caller,
    index: new EndpointIndex(),
    ...(config.LLM_BASE_URL && config.LLM_MODEL
      ? {
          model: new OpenAiCompatibleModel({
            baseUrl: config.LLM_BASE_URL,
            model: config.LLM_MODEL,
            timeoutMs: config.LLM_TIMEOUT_MS,
            ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
          }),
        }
      : {}),
    maxResultChars: config.MAX_RESULT_CHARS,
    maxAnswerBytes: config.MAX_ANSWER_BYTES,
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    logger,
    now: options.now ?? (() => new Date()),
    onToolCall: (tool, outcome) => toolCalls.inc({ tool, outcome }),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      duration.observe(
        { route: routeLabel(req.path, config.MCP_PATH), method: req.method, status_code: String(res.statusCode) },
        seconds,
      );
    });
    next();
  });
  // Probes and scrapers reach pods by address, so these are outside the Host check.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const ready = !nc.isClosed();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable' });
  });
  app.get('/metrics', metricsHandler(registry));

  const guard = dnsRebindingGuard(
    config.ALLOWED_HOSTS.length > 0 ? config.ALLOWED_HOSTS : defaultAllowedHosts(publicUrl, config.HOST),
    config.ALLOWED_ORIGINS,
  );
  // RFC 9728: at the path-specific location and, for clients that only try the root, at the root too. Public
  // and CORS-open (the SDK's handler) for browser-based clients: Host is checked, Origin is not.
  const metadata = metadataHandler(protectedResourceMetadata(resource));
  const mcpPath = new URL(publicUrl).pathname;
  const metadataPaths = [
    ...new Set([
      `/.well-known/oauth-protected-resource${mcpPath === '/' ? '' : mcpPath}`,
      '/.well-known/oauth-protected-resource',
    ]),
  ];
  for (const path of metadataPaths) app.use(path, guard.host, metadata);
  // The authorization server's own metadata, also at the MCP origin: some clients look for it there instead of at
  // the issuer named above. Fetched from the authorization server and kept for a minute.
  if (config.AUTHORIZATION_SERVER_URL) {
    for (const path of AUTHORIZATION_SERVER_METADATA_PATHS) {
      const source = new CachedMetadata({
        issuer: config.AUTHORIZATION_SERVER_URL,
        url: authorizationServerMetadataUrl(
          config.AUTHORIZATION_SERVER_INTERNAL_URL ?? config.AUTHORIZATION_SERVER_URL,
          path,
        ),
        ttlMs: AUTHORIZATION_SERVER_METADATA_TTL_MS,
        timeoutMs: AUTHORIZATION_SERVER_METADATA_TIMEOUT_MS,
      });
      app.use(
        path,
        guard.host,
        authorizationServerMetadataHandler(source, AUTHORIZATION_SERVER_METADATA_TTL_MS, logger),
      );
    }
  }
  app.post(
    config.MCP_PATH,
    guard.host,
    guard.origin,
    ...mcpPostHandlers({
      tools,
      decisions,
      verifier: options.verifier ?? API_KEYS_ONLY,
      resource,
      clientAddress: createClientAddressResolver(config.TRUSTED_PROXY_CIDRS),
      maxRequestBytes: config.MAX_REQUEST_BYTES,
      ...(anonymousKey ? { anonymousKeyHash: hashApiKey(anonymousKey) } : {}),
      logger,
    }),
  );
  app.all(config.MCP_PATH, guard.host, guard.origin, methodNotAllowed);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  server.on('request', app);

  return {
    server,
    publicUrl,
    async stop() {
      await drainHttpServer(server);
      caller.close();
      await nc.drain();
    },
  };
}

/** How long the authorization server's metadata is served before it is fetched again, and how long a fetch may take. */
const AUTHORIZATION_SERVER_METADATA_TTL_MS = 60_000;
const AUTHORIZATION_SERVER_METADATA_TIMEOUT_MS = 5_000;

function routeLabel(path: string, mcpPath: string): string {
  if (path === mcpPath) return mcpPath;
  if (path.startsWith('/.well-known/')) return '/.well-known';
  return 'other';
}
