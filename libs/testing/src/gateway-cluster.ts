import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from './service.launcher';

export interface GatewayClusterOptions {
  /** MongoDB URI including the database the cluster uses. */
  mongoUri: string;
  natsUrl: string;
  edges?: number;
  actors?: number;
  sandboxEnv?: Record<string, string>;
  proxyEnv?: Record<string, string>;
  actorEnv?: Record<string, string>;
  edgeEnv?: Record<string, string>;
  /**
   * Preload OpenTelemetry in edge-auth, quota-actor and provider-proxy (StartServiceOptions.preloadTelemetry); the
   * OTEL_* variables of the environment (or of the per-service env) say where spans go. Never in the sandbox,
   * which stands in for a third-party platform.
   */
  preloadTelemetry?: boolean;
  /** Runs every service compiled, as the images do (StartServiceOptions.compiled; `npm run build` first). */
  compiled?: boolean;
  /** development or test; test and development both open the sandbox's control routes. */
  nodeEnv?: string;
  onLine?: (service: string, line: string) => void;
}

/** The platform app and keyring the cluster's processes share. */
export interface ClusterSecrets {
  appId: string;
  appSecret: string;
  /** The gateway's video-shop app at the sandbox. */
  shopAppKey: string;
  shopAppSecret: string;
  /** The gateway's three marketplace apps at the sandbox, by provider id. */
  marketplaceApps: Record<
    'marketplace' | 'marketplace-ads' | 'marketplace-affiliate',
    { partnerId: string; partnerKey: string }
  >;
  credentialsKeys: string;
  credentialsActiveKeyId: string;
}

export interface GatewayCluster {
  sandbox: RunningService;
  /** The first provider-proxy; `proxies` holds every one (startProxy adds more). */
  proxy: RunningService;
  proxies: RunningService[];
  actors: RunningService[];
  edges: RunningService[];
  /** mcp-server processes started with startMcp (none by default). */
  mcps: RunningService[];
  secrets: ClusterSecrets;
  /** PARTITIONS, SUBJECT_PREFIX and KV bucket names shared by this cluster's edges and actors only. */
  sharedEnv: Record<string, string>;
  startActor(extraEnv?: Record<string, string>, from?: BuildCheckout): Promise<RunningService>;
  /** Another provider-proxy replica on the same database, sandbox and renewal-lease bucket. */
  startProxy(extraEnv?: Record<string, string>, from?: BuildCheckout): Promise<RunningService>;
  startEdge(extraEnv?: Record<string, string>, from?: BuildCheckout): Promise<RunningService>;
  /**
   * Starts an mcp-server on a free port against this cluster's actors and provider-proxy. Its MCP URL is
   * `${service.url}/mcp` unless extraEnv sets PUBLIC_URL or MCP_PATH.
   */
  startMcp(extraEnv?: Record<string, string>): Promise<RunningService>;
  /** portal-api processes started with startPortal (none by default). */
  portals: RunningService[];
  /**
   * Starts a portal-api on a free port against this cluster's database, actors (key changes) and sandbox (grants);
   * REST_BASE_URL is the first edge's address unless extraEnv sets it.
   */
  startPortal(extraEnv?: Record<string, string>): Promise<RunningService>;
  stop(): Promise<void>;
}

/** Another checkout of the repository whose build a service runs from (StartServiceOptions.root). */
export interface BuildCheckout {
  root: string;
}

/**
 * Starts a complete gateway as real processes on loopback: the platform sandbox, provider-proxy, quota-actor(s)
 * and edge-auth(s), isolated from other clusters on the same NATS server by its own subject prefix and buckets.
 */
export async function startGatewayCluster(options: GatewayClusterOptions): Promise<GatewayCluster> {
  const tag = randomBytes(4).toString('hex');
  const secrets: ClusterSecrets = {
    appId: `7${BigInt(`0x${randomBytes(7).toString('hex')}`)
      .toString()
      .padStart(17, '1')
      .slice(0, 17)}`,
    appSecret: randomBytes(20).toString('hex'),
    shopAppKey: `6${randomBytes(6).toString('hex')}`,
    shopAppSecret: randomBytes(20).toString('hex'),
    marketplaceApps: {
      marketplace: { partnerId: '2101001', partnerKey: randomBytes(32).toString('hex') },
      'marketplace-ads': { partnerId: '2101002', partnerKey: randomBytes(32).toString('hex') },
      'marketplace-affiliate': { partnerId: '2101003', partnerKey: randomBytes(32).toString('hex') },
    },
    credentialsKeys: `k${tag}:${randomBytes(32).toString('base64')}`,
    credentialsActiveKeyId: `k${tag}`,
  };
  const sharedEnv = {
    PARTITIONS: '16',
    SUBJECT_PREFIX: `gwt${tag}`,
    LEASE_BUCKET: `gwt_${tag}_leases`,
  };
  const nodeEnv = options.nodeEnv ?? 'test';
  const started: RunningService[] = [];
  const launch = async (name: string, env: Record<string, string>, listeners: string[], from?: BuildCheckout) => {
    const service = await startService(
      name,
      { NODE_ENV: nodeEnv, LOG_LEVEL: 'warn', ...env },
      {
        listeners,
        timeoutMs: 60_000,
        preloadTelemetry: options.preloadTelemetry === true && name !== 'platform-sandbox',
        compiled: options.compiled === true,
        ...(from ? { root: from.root } : {}),
        ...(options.onLine ? { onLine: (line) => options.onLine!(name, line) } : {}),
      },
    );
    started.push(service);
    return service;
  };

  const actors: RunningService[] = [];
  const edges: RunningService[] = [];
  const mcps: RunningService[] = [];
  const portals: RunningService[] = [];
  try {
    const sandbox = await launch(
      'platform-sandbox',
      {
        SANDBOX_APP_ID: secrets.appId,
        SANDBOX_APP_SECRET: secrets.appSecret,
        SANDBOX_APP_QPS: '0',
        SANDBOX_VIDEO_SHOP_APP_KEY: secrets.shopAppKey,
        SANDBOX_VIDEO_SHOP_APP_SECRET: secrets.shopAppSecret,
        SANDBOX_VIDEO_SHOP_APP_QPS: '0',
        SANDBOX_MARKETPLACE_SELLER_PARTNER_ID: secrets.marketplaceApps.marketplace.partnerId,
        SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY: secrets.marketplaceApps.marketplace.partnerKey,
        SANDBOX_MARKETPLACE_ADS_PARTNER_ID: secrets.marketplaceApps['marketplace-ads'].partnerId,
        SANDBOX_MARKETPLACE_ADS_PARTNER_KEY: secrets.marketplaceApps['marketplace-ads'].partnerKey,
        SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_ID: secrets.marketplaceApps['marketplace-affiliate'].partnerId,
        SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_KEY: secrets.marketplaceApps['marketplace-affiliate'].partnerKey,
        SANDBOX_MARKETPLACE_APP_QPS: '0',
        ...options.sandboxEnv,
      },
      [],
    );
    // The gateway's side of the three marketplace apps (provider-proxy and portal-api read the same variables).
    const marketplaceEnv = {
      MARKETPLACE_BASE_URL: `${sandbox.url}/marketplace`,
      MARKETPLACE_PARTNER_ID: secrets.marketplaceApps.marketplace.partnerId,
      MARKETPLACE_PARTNER_KEY: secrets.marketplaceApps.marketplace.partnerKey,
      MARKETPLACE_ADS_PARTNER_ID: secrets.marketplaceApps['marketplace-ads'].partnerId,
      MARKETPLACE_ADS_PARTNER_KEY: secrets.marketplaceApps['marketplace-ads'].partnerKey,
      MARKETPLACE_AFFILIATE_PARTNER_ID: secrets.marketplaceApps['marketplace-affiliate'].partnerId,
      MARKETPLACE_AFFILIATE_PARTNER_KEY: secrets.marketplaceApps['marketplace-affiliate'].partnerKey,
    };
    // search-ads has no app of the gateway: each connection is its own API user at the platform.
    const searchAdsEnv = {
      SEARCH_ADS_API_URL: `${sandbox.url}/search-ads`,
      SEARCH_ADS_AUTH_URL: `${sandbox.url}/search-ads-auth`,
    };
    const proxies: RunningService[] = [];
    const startProxy = async (extraEnv: Record<string, string> = {}, from?: BuildCheckout) => {
      const started = await launch(
        'provider-proxy',
        {
          MONGODB_URI: options.mongoUri,
          NATS_URL: options.natsUrl,
          RENEWAL_LEASE_BUCKET: `gwt_${tag}_renewals`,
          CREDENTIALS_ENCRYPTION_KEYS: secrets.credentialsKeys,
          CREDENTIALS_ACTIVE_KEY_ID: secrets.credentialsActiveKeyId,
          VIDEO_ADS_BASE_URL: sandbox.url,
          VIDEO_ADS_APP_ID: secrets.appId,
          VIDEO_ADS_APP_SECRET: secrets.appSecret,
          VIDEO_ADS_APP_QPS: '0',
          VIDEO_SHOP_API_URL: `${sandbox.url}/video-shop`,
          VIDEO_SHOP_AUTH_URL: `${sandbox.url}/video-shop-auth`,
          VIDEO_SHOP_APP_KEY: secrets.shopAppKey,
          VIDEO_SHOP_APP_SECRET: secrets.shopAppSecret,
          VIDEO_SHOP_APP_QPS: '0',
          ...marketplaceEnv,
          MARKETPLACE_APP_QPS: '0',
          MARKETPLACE_ADS_APP_QPS: '0',
          MARKETPLACE_AFFILIATE_APP_QPS: '0',
          ...searchAdsEnv,
          SEARCH_ADS_QPS: '0',
          GRPC_PORT: '0',
          HTTP_PORT: '0',
          ...options.proxyEnv,
          ...extraEnv,
        },
        ['grpc', 'http'],
        from,
      );
      proxies.push(started);
      return started;
    };
    const proxy = await startProxy();
    const cluster: GatewayCluster = {
      sandbox,
      proxy,
      proxies,
      actors,
      edges,
      mcps,
      portals,
      secrets,
      sharedEnv,
      startProxy,
      async startActor(extraEnv = {}, from?: BuildCheckout) {
        const actor = await launch(
          'quota-actor',
          {
            MONGODB_URI: options.mongoUri,
            NATS_URL: options.natsUrl,
            HTTP_PORT: '0',
            ...sharedEnv,
            ...options.actorEnv,
            ...extraEnv,
          },
          ['http'],
          from,
        );
        actors.push(actor);
        return actor;
      },
      async startEdge(extraEnv = {}, from?: BuildCheckout) {
        const edge = await launch(
          'edge-auth',
          {
            NATS_URL: options.natsUrl,
            PROVIDER_PROXY_ADDRESS: new URL(proxy.urls.grpc!).host,
            ...sharedEnv,
            ...options.edgeEnv,
            ...extraEnv,
          },
          ['http'],
          from,
        );
        edges.push(edge);
        return edge;
      },
      async startMcp(extraEnv = {}) {
        const mcp = await launch(
          'mcp-server',
          {
            NATS_URL: options.natsUrl,
            PROVIDER_PROXY_ADDRESS: new URL(proxy.urls.grpc!).host,
            ...sharedEnv,
            ...extraEnv,
          },
          ['http'],
        );
        mcps.push(mcp);
        return mcp;
      },
      async startPortal(extraEnv = {}) {
        const portal = await launch(
          'portal-api',
          {
            MONGODB_URI: options.mongoUri,
            NATS_URL: options.natsUrl,
            CREDENTIALS_ENCRYPTION_KEYS: secrets.credentialsKeys,
            CREDENTIALS_ACTIVE_KEY_ID: secrets.credentialsActiveKeyId,
            VIDEO_ADS_BASE_URL: sandbox.url,
            VIDEO_ADS_APP_ID: secrets.appId,
            VIDEO_ADS_APP_SECRET: secrets.appSecret,
            VIDEO_SHOP_API_URL: `${sandbox.url}/video-shop`,
            VIDEO_SHOP_AUTH_URL: `${sandbox.url}/video-shop-auth`,
            VIDEO_SHOP_APP_KEY: secrets.shopAppKey,
            VIDEO_SHOP_APP_SECRET: secrets.shopAppSecret,
            ...marketplaceEnv,
            ...searchAdsEnv,
            // The platform's "create an API user" page, where the portal's connect dialog links to.
            SEARCH_ADS_API_USERS_URL: `${sandbox.url}/search-ads-auth/api-users`,
            ...(edges[0] ? { REST_BASE_URL: edges[0].url } : {}),
            ...(mcps[0] ? { MCP_URL: `${mcps[0].url}/mcp` } : {}),
            ...sharedEnv,
            ...extraEnv,
          },
          ['http'],
        );
        portals.push(portal);
        return portal;
      },
      async stop() {
        for (const service of [...started].reverse()) await service.stop();
      },
    };
    for (let i = 0; i < (options.actors ?? 1); i++) await cluster.startActor();
    for (let i = 0; i < (options.edges ?? 1); i++) await cluster.startEdge();
    return cluster;
  } catch (error) {
    for (const service of [...started].reverse()) await service.stop();
    throw error;
  }
}
