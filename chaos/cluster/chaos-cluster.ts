import {
  GatewayFixtures,
  freePort,
  startService,
  toolsBinDir,
  type ClusterSecrets,
  type GatewayCluster,
  type RunningService,
} from '@gateway/testing';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Supervisor, type SupervisedProcess } from '../../scripts/stack/supervisor';
import { InfraProcess } from './infra.process';

/**
 * The platform deadline of edges, mcp-server and provider-proxy in this cluster (30 s by default): scenario 5 hangs the
 * platform, and a short deadline keeps the run short while testing the same code path.
 */
export const CHAOS_UPSTREAM_TIMEOUT_MS = 3_000;

export type Supervised = SupervisedProcess<RunningService>;

/** A service process of the cluster under the supervisor, by its label (edge-auth-1, provider-proxy-2, ...). */
export interface ClusterMember {
  label: string;
  service: string;
  supervised: Supervised;
}

export interface ChaosKey {
  label: string;
  secret: string;
  keyId: string;
  mode: 'block' | 'metered';
}

export interface ChaosClusterOptions {
  workDir: string;
  /** Monthly quota of the block-mode plan (growth here), the customer's for all its keys. */
  blockQuota: number;
  log: (message: string) => void;
}

/**
 * The chaos run's own gateway on loopback: nats-server with JetStream, FerretDB, the sandbox, two provider-proxies,
 * two quota-actors, two edge-auths and one mcp-server, each service under the stack's supervisor with fixed ports
 * (a restarted process comes back on the address the others know). Edges and mcp-server reach both proxies through
 * one gRPC target with both addresses (`ipv4:a,b`): the channel moves to the other address when one goes away.
 */
export class ChaosCluster {
  readonly members: ClusterMember[] = [];
  private readonly logs: WriteStream[] = [];
  private fixturesHandle: GatewayFixtures | undefined;

  private constructor(
    readonly options: ChaosClusterOptions,
    readonly nats: InfraProcess,
    readonly natsUrl: string,
    readonly ferretdb: InfraProcess,
    readonly mongoUri: string,
    readonly supervisor: Supervisor,
    readonly secrets: ClusterSecrets,
    readonly sharedEnv: Record<string, string>,
  ) {}

  get fixtures(): GatewayFixtures {
    return this.fixturesHandle!;
  }

  member(label: string): ClusterMember {
    const found = this.members.find((member) => member.label === label);
    if (!found) throw new Error(`no cluster member ${label}`);
    return found;
  }

  byService(service: string): ClusterMember[] {
    return this.members.filter((member) => member.service === service);
  }

  url(label: string, listener = 'http'): string {
    const current = this.member(label).supervised.current!;
    return current.urls[listener] ?? current.url;
  }

  get restOrigins(): string[] {
    return this.byService('edge-auth').map((member) => this.url(member.label));
  }

  get mcpUrl(): string {
    return `${this.url('mcp-server-1')}/mcp`;
  }

  get sandboxUrl(): string {
    return this.url('platform-sandbox-1');
  }

  /** Exits of every service that nobody asked for, by label. */
  exitCounts(): Record<string, number> {
    return Object.fromEntries(this.members.map((member) => [member.label, member.supervised.exits.length]));
  }

  static async start(options: ChaosClusterOptions): Promise<ChaosCluster> {
    const { workDir, log } = options;
    const logDir = join(workDir, 'logs');
    mkdirSync(logDir, { recursive: true });
    const natsBinary = ['/usr/sbin/nats-server', join(toolsBinDir(), 'nats-server')].find((path) => existsSync(path));
    const ferretBinary = join(toolsBinDir(), 'ferretdb');
    if (!natsBinary) throw new Error('nats-server not found (/usr/sbin or scripts/tools/install.sh nats-server)');
    if (!existsSync(ferretBinary)) throw new Error(`FerretDB not found at ${ferretBinary} (npm run tools)`);

    const natsPort = await freePort();
    const nats = InfraProcess.nats(natsBinary, natsPort, join(workDir, 'nats'), join(logDir, 'nats-server.log'));
    await nats.start();
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    log(`nats-server pid ${nats.pid} on ${natsUrl}`);
    const mongoPort = await freePort();
    const ferretdb = InfraProcess.ferretdb(
      ferretBinary,
      mongoPort,
      join(workDir, 'ferretdb'),
      join(logDir, 'ferretdb.log'),
    );
    try {
      await ferretdb.start();
    } catch (error) {
      await nats.stop();
      throw error;
    }
    // FerretDB 1.24 (SQLite) deadlocks beyond ~50 concurrent updates: at most 8 connections per process (bench).
    const mongoUri = `mongodb://127.0.0.1:${mongoPort}/chaos?maxPoolSize=8`;
    log(`FerretDB pid ${ferretdb.pid} on 127.0.0.1:${mongoPort}`);

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
      SUBJECT_PREFIX: `chaos${tag}`,
      LEASE_BUCKET: `chaos_${tag}_leases`,
    };
    const supervisor = new Supervisor({ log });
    const cluster = new ChaosCluster(options, nats, natsUrl, ferretdb, mongoUri, supervisor, secrets, sharedEnv);
    try {
      await cluster.startServices(logDir);
      await cluster.seed();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  private async launch(
    service: string,
    label: string,
    env: Record<string, string>,
    listeners: string[],
    logDir: string,
  ) {
    const logFile = createWriteStream(join(logDir, `${label}.log`), { flags: 'a' });
    this.logs.push(logFile);
    const supervised = await this.supervisor.start(label, () =>
      startService(
        service,
        { NODE_ENV: 'test', LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn', ...env },
        {
          listeners,
          timeoutMs: 60_000,
          onLine: (line) => logFile.write(`${line}\n`),
        },
      ),
    );
    this.members.push({ label, service, supervised });
    return supervised.current!;
  }

  private async startServices(logDir: string): Promise<void> {
    const { secrets, sharedEnv } = this;
    const sandboxPort = String(await freePort());
    const sandbox = await this.launch(
      'platform-sandbox',
      'platform-sandbox-1',
      {
        PORT: sandboxPort,
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
        SANDBOX_REQUEST_LOG_LIMIT: '1000',
      },
      [],
      logDir,
    );
    const grpcPorts: number[] = [];
    for (let i = 1; i <= 2; i++) {
      const grpcPort = await freePort();
      grpcPorts.push(grpcPort);
      await this.launch(
        'provider-proxy',
        `provider-proxy-${i}`,
        {
          MONGODB_URI: this.mongoUri,
          NATS_URL: this.natsUrl,
          RENEWAL_LEASE_BUCKET: `${sharedEnv.LEASE_BUCKET}_renewals`,
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
          MARKETPLACE_BASE_URL: `${sandbox.url}/marketplace`,
          MARKETPLACE_PARTNER_ID: secrets.marketplaceApps.marketplace.partnerId,
          MARKETPLACE_PARTNER_KEY: secrets.marketplaceApps.marketplace.partnerKey,
          MARKETPLACE_ADS_PARTNER_ID: secrets.marketplaceApps['marketplace-ads'].partnerId,
          MARKETPLACE_ADS_PARTNER_KEY: secrets.marketplaceApps['marketplace-ads'].partnerKey,
          MARKETPLACE_AFFILIATE_PARTNER_ID: secrets.marketplaceApps['marketplace-affiliate'].partnerId,
          MARKETPLACE_AFFILIATE_PARTNER_KEY: secrets.marketplaceApps['marketplace-affiliate'].partnerKey,
          MARKETPLACE_APP_QPS: '0',
          MARKETPLACE_ADS_APP_QPS: '0',
          MARKETPLACE_AFFILIATE_APP_QPS: '0',
          SEARCH_ADS_API_URL: `${sandbox.url}/search-ads`,
          SEARCH_ADS_AUTH_URL: `${sandbox.url}/search-ads-auth`,
          SEARCH_ADS_QPS: '0',
          UPSTREAM_TIMEOUT_MS: String(CHAOS_UPSTREAM_TIMEOUT_MS),
          GRPC_PORT: String(grpcPort),
          HTTP_PORT: String(await freePort()),
        },
        ['grpc', 'http'],
        logDir,
      );
    }
    for (let i = 1; i <= 2; i++) {
      await this.launch(
        'quota-actor',
        `quota-actor-${i}`,
        { MONGODB_URI: this.mongoUri, NATS_URL: this.natsUrl, HTTP_PORT: String(await freePort()), ...sharedEnv },
        ['http'],
        logDir,
      );
    }
    // Both proxies behind one target: grpc-js's pick_first takes the first address that answers.
    const proxyTarget = `ipv4:${grpcPorts.map((port) => `127.0.0.1:${port}`).join(',')}`;
    for (let i = 1; i <= 2; i++) {
      await this.launch(
        'edge-auth',
        `edge-auth-${i}`,
        {
          NATS_URL: this.natsUrl,
          PROVIDER_PROXY_ADDRESS: proxyTarget,
          UPSTREAM_TIMEOUT_MS: String(CHAOS_UPSTREAM_TIMEOUT_MS),
          PORT: String(await freePort()),
          ...sharedEnv,
        },
        ['http'],
        logDir,
      );
    }
    await this.launch(
      'mcp-server',
      'mcp-server-1',
      {
        NATS_URL: this.natsUrl,
        PROVIDER_PROXY_ADDRESS: proxyTarget,
        UPSTREAM_TIMEOUT_MS: String(CHAOS_UPSTREAM_TIMEOUT_MS),
        PORT: String(await freePort()),
        ...sharedEnv,
      },
      ['http'],
      logDir,
    );
  }

  private async seed(): Promise<void> {
    // GatewayFixtures reads only the secrets, the shared limiter env and the sandbox's address of a cluster.
    const clusterView = {
      secrets: this.secrets,
      sharedEnv: this.sharedEnv,
      sandbox: { url: this.sandboxUrl },
    } as unknown as GatewayCluster;
    this.fixturesHandle = await GatewayFixtures.open(clusterView, this.mongoUri, this.natsUrl);
    // Block keys: growth (block) with a quota the load exhausts; metered keys: business as shipped. The rates are
    // the plans' own (25/s and 100/s per key), above what the load sends a key.
    await this.fixturesHandle.setPlan('growth', { overage_mode: 'block', monthly_quota: this.options.blockQuota });
  }

  /**
   * Fresh keys for one scenario: `count` of each mode, labelled <prefix>-block-1, ... The quota is the customer's
   * (docs/rest.md, "Limits"), so each call makes a new block customer and a new metered one, each with one
   * video-ads connection: a scenario starts with the whole quota and a ledger of 0.
   */
  async keys(prefix: string, count: number): Promise<ChaosKey[]> {
    const fixtures = this.fixtures;
    const customers = {
      block: (await fixtures.customer('growth')).customer_id,
      metered: (await fixtures.customer('business')).customer_id,
    };
    const accounts = {
      block: (await fixtures.videoAdsConnection(customers.block)).accountId,
      metered: (await fixtures.videoAdsConnection(customers.metered)).accountId,
    };
    const made: ChaosKey[] = [];
    for (let i = 1; i <= count; i++) {
      for (const mode of ['block', 'metered'] as const) {
        const created = await fixtures.key({ customerId: customers[mode], accountIds: [accounts[mode]] });
        made.push({ label: `${prefix}-${mode}-${i}`, secret: created.secret, keyId: created.key.key_id, mode });
      }
    }
    return made;
  }

  /** Requests counted in the ledger (monthly_usage) for a key this month. */
  async ledgerUsed(keyId: string): Promise<number> {
    const month = new Date().toISOString().slice(0, 7);
    return (await this.fixtures.store.usage.get(keyId, month)).used;
  }

  /** Resident memory of a member's current process, from /proc/<pid>/status (VmRSS), in MiB. */
  rssMiB(label: string): number | undefined {
    const pid = this.member(label).supervised.current?.process.pid;
    return pid === undefined ? undefined : readRssMiB(pid);
  }

  async stop(): Promise<void> {
    await this.fixturesHandle?.close().catch(() => undefined);
    await this.supervisor.stopAll();
    for (const stream of this.logs) stream.end();
    await this.ferretdb.stop();
    await this.nats.stop();
  }
}

export function readRssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kib === undefined ? undefined : Math.round(Number(kib) / 1024);
  } catch {
    return undefined;
  }
}
