import { CredentialCipher, openStore } from '@gateway/store';
import { ensureNats, freePort, repoRoot, startService, type RunningService } from '@gateway/testing';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { seedDemo, type DemoIdentity } from './demo-seed';
import { openStackDatabase } from './stack-database';
import { loadOrCreateSecrets } from './local-secrets';
import { Supervisor } from './supervisor';

export interface StackOptions {
  /** Where FerretDB data, secrets, logs and stack.json live; default <repo>/.local. */
  localDir?: string;
  /** fixed: the documented ports (REST 8080, ...); ephemeral: every listener on a free port (tests). */
  ports?: 'fixed' | 'ephemeral';
  env?: NodeJS.ProcessEnv;
  log?: (message: string) => void;
}

export interface StackInfo {
  urls: Record<string, string>;
  demo: DemoIdentity;
  /** Where the stack's state lives, and the limiter subjects/buckets its processes share. */
  infra: {
    nats: string;
    mongodb: string;
    SUBJECT_PREFIX: string;
    LEASE_BUCKET: string;
    RENEWAL_LEASE_BUCKET: string;
  };
}

export interface RunningStack {
  info: StackInfo;
  localDir: string;
  services: Map<string, RunningService>;
  stop(): Promise<void>;
}

const FIXED_PORTS = {
  sandbox: { PORT: '8090' },
  'provider-proxy': { GRPC_PORT: '50051', HTTP_PORT: '9465' },
  'quota-actor': { HTTP_PORT: '9464' },
  'edge-auth': { PORT: '8080' },
  'mcp-server': { PORT: '8081' },
  'portal-api': { PORT: '8082' },
  'oauth-server': { PORT: '8083' },
} as const;

type ServiceName = keyof typeof FIXED_PORTS;

/**
 * Brings the whole system up on one machine (README, "Quick start"): NATS and a MongoDB-wire server
 * (found or started), the platform sandbox, every service, and a seeded demo customer. Writes stack.json.
 */
export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const localDir = options.localDir ?? join(repoRoot(), '.local');
  const ephemeral = options.ports === 'ephemeral';
  mkdirSync(join(localDir, 'logs'), { recursive: true });

  const secrets = loadOrCreateSecrets(join(localDir, 'secrets.json'));
  const nats = await ensureNats({ env, log, dataDir: join(localDir, 'nats') });
  const mongo = await openStackDatabase(env, localDir, log);
  const mongoUri = mongo.databaseUri;
  // Several stacks (or test clusters) may share one NATS server: each stack keeps its own subjects and buckets.
  const stackId = createHash('sha256').update(localDir).digest('hex').slice(0, 8);
  const limiterEnv = {
    SUBJECT_PREFIX: `gw.${stackId}`,
    LEASE_BUCKET: `gw_${stackId}_leases`,
  };
  const renewalBucket = `gw_${stackId}_renewals`;
  const services = new Map<string, RunningService>();
  const logs: WriteStream[] = [];
  // A service that crashes is started again with the same environment and ports, as Kubernetes would.
  const supervisor = new Supervisor({ log });

  const stop = async () => {
    await supervisor.stopAll();
    services.clear();
    for (const stream of logs) stream.end();
    await mongo.stop();
    await nats.stop();
  };

  const launch = async (
    name: ServiceName,
    serviceEnv: Record<string, string>,
    listeners: string[],
    fixedPorts?: Record<string, string>,
  ) => {
    const logFile = createWriteStream(join(localDir, 'logs', `${name}.log`), { flags: 'a' });
    logs.push(logFile);
    // Free ports are picked once (not PORT=0) so that a restarted service comes back on the address others know.
    const ports = fixedPorts ?? (ephemeral ? await freePorts(FIXED_PORTS[name]) : FIXED_PORTS[name]);
    const supervised = await supervisor.start(
      name,
      () =>
        startService(
          name === 'sandbox' ? 'platform-sandbox' : name,
          { NODE_ENV: 'development', LOG_LEVEL: env.LOG_LEVEL ?? 'info', ...ports, ...serviceEnv },
          {
            listeners,
            baseEnv: env,
            onLine: (line) => logFile.write(`${line}\n`),
            timeoutMs: 60_000,
            // Traces only when there is somewhere to send them (the SDK costs over a second of startup otherwise).
            preloadTelemetry: Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) && name !== 'sandbox',
          },
        ),
      (service) => services.set(name, service),
    );
    const service = supervised.current!;
    log(`${name} is up: ${Object.values(service.urls).join(' ')}`);
    return service;
  };

  try {
    // A local stack also serves load tests: its app may make far more calls than the platform's Premium tier.
    const appQps = env.STACK_PLATFORM_QPS ?? '5000';
    const sandbox = await launch(
      'sandbox',
      {
        SANDBOX_APP_ID: secrets.videoAdsAppId,
        SANDBOX_APP_SECRET: secrets.videoAdsAppSecret,
        SANDBOX_APP_QPS: appQps,
        SANDBOX_VIDEO_SHOP_APP_KEY: secrets.videoShopAppKey,
        SANDBOX_VIDEO_SHOP_APP_SECRET: secrets.videoShopAppSecret,
        SANDBOX_VIDEO_SHOP_APP_QPS: appQps,
        SANDBOX_MARKETPLACE_SELLER_PARTNER_ID: secrets.marketplacePartnerId,
        SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY: secrets.marketplacePartnerKey,
        SANDBOX_MARKETPLACE_ADS_PARTNER_ID: secrets.marketplaceAdsPartnerId,
        SANDBOX_MARKETPLACE_ADS_PARTNER_KEY: secrets.marketplaceAdsPartnerKey,
        SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_ID: secrets.marketplaceAffiliatePartnerId,
        SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_KEY: secrets.marketplaceAffiliatePartnerKey,
        SANDBOX_MARKETPLACE_APP_QPS: appQps,
        // search-ads has no app: the platform limits each API user per hour; 0 = unlimited, as for load tests above.
        SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT: env.STACK_SEARCH_ADS_USER_HOUR_LIMIT ?? '0',
      },
      [],
    );
    // Each provider's platform is the sandbox, under the provider's path prefixes (platform-sandbox README).
    const platformEnv = {
      VIDEO_ADS_BASE_URL: sandbox.url,
      VIDEO_ADS_APP_ID: secrets.videoAdsAppId,
      VIDEO_ADS_APP_SECRET: secrets.videoAdsAppSecret,
      VIDEO_SHOP_API_URL: `${sandbox.url}/video-shop`,
      VIDEO_SHOP_AUTH_URL: `${sandbox.url}/video-shop-auth`,
      VIDEO_SHOP_APP_KEY: secrets.videoShopAppKey,
      VIDEO_SHOP_APP_SECRET: secrets.videoShopAppSecret,
      // The three marketplace apps share one platform host (docs/providers.md).
      MARKETPLACE_BASE_URL: `${sandbox.url}/marketplace`,
      MARKETPLACE_PARTNER_ID: secrets.marketplacePartnerId,
      MARKETPLACE_PARTNER_KEY: secrets.marketplacePartnerKey,
      MARKETPLACE_ADS_PARTNER_ID: secrets.marketplaceAdsPartnerId,
      MARKETPLACE_ADS_PARTNER_KEY: secrets.marketplaceAdsPartnerKey,
      MARKETPLACE_AFFILIATE_PARTNER_ID: secrets.marketplaceAffiliatePartnerId,
      MARKETPLACE_AFFILIATE_PARTNER_KEY: secrets.marketplaceAffiliatePartnerKey,
      // search-ads has no app of the gateway (each connection is its own API user): its two hosts only.
      SEARCH_ADS_API_URL: `${sandbox.url}/search-ads`,
      SEARCH_ADS_AUTH_URL: `${sandbox.url}/search-ads-auth`,
    };
    const proxy = await launch(
      'provider-proxy',
      {
        MONGODB_URI: mongoUri,
        CREDENTIALS_ENCRYPTION_KEYS: secrets.credentialsKeys,
        CREDENTIALS_ACTIVE_KEY_ID: secrets.credentialsActiveKeyId,
        ...platformEnv,
        VIDEO_ADS_APP_QPS: appQps,
        VIDEO_SHOP_APP_QPS: appQps,
        MARKETPLACE_APP_QPS: appQps,
        MARKETPLACE_ADS_APP_QPS: appQps,
        MARKETPLACE_AFFILIATE_APP_QPS: appQps,
        SEARCH_ADS_QPS: appQps,
        // Token renewals are single-flight across replicas through a lease in this KV bucket.
        NATS_URL: nats.url,
        RENEWAL_LEASE_BUCKET: renewalBucket,
      },
      ['grpc', 'http'],
    );
    const actor = await launch('quota-actor', { MONGODB_URI: mongoUri, NATS_URL: nats.url, ...limiterEnv }, ['http']);
    const edge = await launch(
      'edge-auth',
      { NATS_URL: nats.url, PROVIDER_PROXY_ADDRESS: new URL(proxy.urls.grpc!).host, ...limiterEnv },
      ['http'],
    );

    // mcp-server and oauth-server name each other (the authorization server; the resource and token audience),
    // so their ports are known before either starts, free ones when ephemeral.
    const mcpPort = ephemeral ? String(await freePort()) : FIXED_PORTS['mcp-server'].PORT;
    const oauthPort = ephemeral ? String(await freePort()) : FIXED_PORTS['oauth-server'].PORT;
    const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const oauthUrl = `http://127.0.0.1:${oauthPort}`;

    // The MCP endpoint (spec 4.3) on the same keys, quota and allowlist; its URL is the bound address + /mcp.
    const mcp = await launch(
      'mcp-server',
      {
        NATS_URL: nats.url,
        PROVIDER_PROXY_ADDRESS: new URL(proxy.urls.grpc!).host,
        AUTHORIZATION_SERVER_URL: oauthUrl,
        MONGODB_URI: mongoUri,
        ...limiterEnv,
      },
      ['http'],
      { PORT: mcpPort },
    );

    // The assistants' OAuth sign-in (spec 5.3): the issuer mcp-server names, tokens for its URL only.
    const oauth = await launch(
      'oauth-server',
      { MONGODB_URI: mongoUri, NATS_URL: nats.url, ISSUER: oauthUrl, MCP_RESOURCE_URL: mcpUrl, ...limiterEnv },
      ['http'],
      { PORT: oauthPort },
    );

    // The key portal (web app and JSON API); platform grants come back to its bound address.
    const portal = await launch(
      'portal-api',
      {
        MONGODB_URI: mongoUri,
        NATS_URL: nats.url,
        CREDENTIALS_ENCRYPTION_KEYS: secrets.credentialsKeys,
        CREDENTIALS_ACTIVE_KEY_ID: secrets.credentialsActiveKeyId,
        ...platformEnv,
        // The page where a customer registers the portal's public key as a search-ads API user: the sandbox's own.
        SEARCH_ADS_API_USERS_URL: `${sandbox.url}/search-ads-auth/api-users`,
        REST_BASE_URL: edge.url,
        MCP_URL: `${mcp.url}/mcp`,
        ...limiterEnv,
      },
      ['http'],
    );

    const statePath = join(localDir, 'stack.json');
    const previous = existsSync(statePath)
      ? (JSON.parse(readFileSync(statePath, 'utf8')) as Partial<StackInfo>).demo
      : undefined;
    const cipher = CredentialCipher.fromEnv(secrets.credentialsKeys, secrets.credentialsActiveKeyId);
    const store = await openStore(mongoUri, { cipher });
    let demo: DemoIdentity;
    try {
      demo = await seedDemo(
        store,
        {
          videoAds: { baseUrl: sandbox.url, appId: secrets.videoAdsAppId, secret: secrets.videoAdsAppSecret },
          videoShop: {
            apiBaseUrl: platformEnv.VIDEO_SHOP_API_URL,
            authBaseUrl: platformEnv.VIDEO_SHOP_AUTH_URL,
            appKey: secrets.videoShopAppKey,
            appSecret: secrets.videoShopAppSecret,
          },
          marketplace: {
            marketplace: {
              baseUrl: platformEnv.MARKETPLACE_BASE_URL,
              partnerId: secrets.marketplacePartnerId,
              partnerKey: secrets.marketplacePartnerKey,
            },
            'marketplace-ads': {
              baseUrl: platformEnv.MARKETPLACE_BASE_URL,
              partnerId: secrets.marketplaceAdsPartnerId,
              partnerKey: secrets.marketplaceAdsPartnerKey,
            },
            'marketplace-affiliate': {
              baseUrl: platformEnv.MARKETPLACE_BASE_URL,
              partnerId: secrets.marketplaceAffiliatePartnerId,
              partnerKey: secrets.marketplaceAffiliatePartnerKey,
            },
          },
          searchAds: { apiBaseUrl: platformEnv.SEARCH_ADS_API_URL, authBaseUrl: platformEnv.SEARCH_ADS_AUTH_URL },
        },
        previous,
      );
    } finally {
      await store.close();
    }

    const info: StackInfo = {
      urls: {
        rest: edge.url,
        mcp: `${mcp.url}/mcp`,
        oauth: oauth.url,
        portal: portal.url,
        sandbox: sandbox.url,
        provider_proxy_grpc: proxy.urls.grpc!,
        provider_proxy_metrics: `${proxy.urls.http}/metrics`,
        quota_actor_metrics: `${actor.url}/metrics`,
        edge_metrics: `${edge.url}/metrics`,
        mcp_metrics: `${mcp.url}/metrics`,
      },
      demo,
      infra: { nats: nats.url, mongodb: mongoUri, ...limiterEnv, RENEWAL_LEASE_BUCKET: renewalBucket },
    };
    writeFileSync(statePath, JSON.stringify(info, null, 2), { mode: 0o600 });
    return { info, localDir, services, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function freePorts<T extends Record<string, string>>(ports: T): Promise<T> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(ports)) picked[key] = String(await freePort());
  return picked as T;
}
