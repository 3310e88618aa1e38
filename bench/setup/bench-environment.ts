import {
  GatewayFixtures,
  ensureMongo,
  ensureMongoPreferringPostgresql,
  ensureNats,
  freePort,
  startGatewayCluster,
  uniqueDatabaseUri,
  type GatewayCluster,
  type MongoHandle,
  type NatsHandle,
  type RunningService,
} from '@gateway/testing';
import { DEFAULT_PLANS, type PlanName } from '@gateway/store';
import { join } from 'node:path';

/** One seeded key: the secret goes in X-API-Key, the hash is what the actor and DecisionClient see. */
export interface BenchKey {
  secret: string;
  hash: string;
  keyId: string;
}

export interface BenchPlans {
  /** Load keys and the hot key: the business plan as shipped (metered, rps/burst below). */
  load: { name: PlanName; rps: number; burst: number };
  /** Block-mode quota keys: a quota small enough to exhaust, a rate that never limits. */
  quota: { name: PlanName; monthlyQuota: number; rps: number; burst: number; chunk: number };
}

/**
 * Everything the benchmark runs against, started by the benchmark itself: NATS (a dedicated nats-server unless
 * NATS_URL is set), a MongoDB-wire server (FerretDB unless MONGODB_URI is set), the gateway cluster (sandbox,
 * provider-proxy, one quota-actor, one edge per gRPC transport) and the seeded customers and keys.
 */
/** A profiled window of one service process: the profile file it writes is CPU.<time>.<pid>.0.<seq>.cpuprofile. */
export interface ProfileWindow {
  label: string;
  service: string;
  pid: number;
  seq: number;
}

export class BenchEnvironment {
  readonly edges: { stream: RunningService; unary: RunningService };
  readonly profileWindows: ProfileWindow[] = [];
  /** The environment a service started later needs to be profiled like the cluster's (empty without --profile). */
  profiledEnv: Record<string, string> = {};
  private readonly profileSeq = new Map<number, number>();
  private profiling = false;
  private extraEdge?: RunningService;

  private constructor(
    readonly nats: NatsHandle,
    readonly mongo: MongoHandle,
    readonly dbUri: string,
    readonly cluster: GatewayCluster,
    readonly fixtures: GatewayFixtures,
    stream: RunningService,
    unary: RunningService,
    readonly plans: BenchPlans,
    readonly loadKeys: BenchKey[],
    readonly hotKey: BenchKey,
    readonly quotaKeys: { plain: BenchKey; crash: BenchKey },
    readonly platform: { token: string; advertiserId: string },
    /** Keys of the load customer's video-shop connection (one shop), for the signed-path scenario. */
    readonly shopKeys: BenchKey[],
    readonly shop: { accountId: string; shopId: string },
  ) {
    this.edges = { stream, unary };
  }

  static async start(options: {
    loadKeys: number;
    monthlyQuota: number;
    /** Where quota-actor, edge-auth, provider-proxy and mcp-server write V8 CPU profiles (node --cpu-prof). */
    profileDir?: string;
    /** The services as the images run them (dist, built by the caller) rather than their sources through tsx. */
    compiled: boolean;
    log: (message: string) => void;
  }): Promise<BenchEnvironment> {
    const { log } = options;
    // A nats-server of our own unless NATS_URL names one: other people's tests share 127.0.0.1:4222 and their
    // traffic would be measured with ours. ensureNats starts a server when nothing answers on defaultUrl.
    const nats = await ensureNats({ defaultUrl: `nats://127.0.0.1:${await freePort()}`, log });
    const mongo = await benchMongo(log).catch(async (error: unknown) => {
      await nats.stop();
      throw error;
    });
    // At most 8 connections per client process (bench, provider-proxy, each quota-actor): FerretDB 1.24's SQLite
    // backend has 100 SQL connections per database and an update holds one while it waits for a second, so about
    // 50 concurrent updates (the drivers' default pool is 100 per process) deadlock it for good.
    const dbUri = withQueryOption(uniqueDatabaseUri(mongo.uri, 'bench'), 'maxPoolSize', '8');
    let cluster: GatewayCluster | undefined;
    let fixtures: GatewayFixtures | undefined;
    // node refuses --cpu-prof in NODE_OPTIONS; a preloaded module runs the same sampling profiler.
    const profiled = options.profileDir
      ? {
          NODE_OPTIONS: `--require ${join(__dirname, '..', 'profile', 'cpu-profile.preload.cjs')}`,
          BENCH_CPU_PROF_DIR: options.profileDir,
        }
      : ({} as Record<string, string>);
    try {
      log('cluster: starting platform-sandbox, provider-proxy, quota-actor');
      cluster = await startGatewayCluster({
        mongoUri: dbUri,
        natsUrl: nats.url,
        compiled: options.compiled,
        edges: 0,
        actors: 0,
        // provider-proxy listens on fixed default ports unless told otherwise.
        proxyEnv: { GRPC_PORT: '0', HTTP_PORT: '0', ...profiled, ...extraEnv('BENCH_PROXY_ENV') },
        actorEnv: { ...profiled, ...extraEnv('BENCH_ACTOR_ENV') },
        edgeEnv: { ...profiled, ...extraEnv('BENCH_EDGE_ENV') },
        sandboxEnv: { SANDBOX_REQUEST_LOG_LIMIT: '1000' },
      });
      await cluster.startActor({ NODE_ID: 'bench-actor-1' });
      log('cluster: starting edge-auth (stream) and edge-auth (unary)');
      const stream = await cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream' });
      const unary = await cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'unary' });

      fixtures = await GatewayFixtures.open(cluster, dbUri, nats.url);
      const business = DEFAULT_PLANS.business;
      const rps = 50_000;
      const plans: BenchPlans = {
        load: { name: 'business', rps: business.rate_limit_rps, burst: business.rate_burst },
        quota: {
          name: 'growth',
          monthlyQuota: options.monthlyQuota,
          rps,
          burst: rps,
          // docs/rest.md, "Limits": the owner reserves max(10, min(1000, rate_limit_rps)) units at a time.
          chunk: Math.max(10, Math.min(1000, rps)),
        },
      };
      await fixtures.setPlan('growth', {
        overage_mode: 'block',
        monthly_quota: options.monthlyQuota,
        rate_limit_rps: rps,
        rate_burst: rps,
      });

      log(`seed: ${options.loadKeys} load keys, a hot key and two block-mode quota keys`);
      const loadCustomer = await fixtures.customer('business');
      const connection = await fixtures.videoAdsConnection(loadCustomer.customer_id);
      const seed = async (
        customerId: string,
        accountId: string,
        provider: 'video-ads' | 'video-shop' = 'video-ads',
      ): Promise<BenchKey> => {
        const created = await fixtures!.key({ customerId, accountIds: [accountId], providers: [provider] });
        return { secret: created.secret, hash: created.key.hash, keyId: created.key.key_id };
      };
      const loadKeys: BenchKey[] = [];
      for (let i = 0; i < options.loadKeys; i += 16) {
        const batch = Math.min(16, options.loadKeys - i);
        loadKeys.push(
          ...(await Promise.all(
            Array.from({ length: batch }, () => seed(loadCustomer.customer_id, connection.accountId)),
          )),
        );
      }
      const hotKey = await seed(loadCustomer.customer_id, connection.accountId);
      // video-shop: a shop of a sandbox seller granted through the sandbox's control route, as the tests' fixtures
      // do (the sandbox runs with SANDBOX_VIDEO_SHOP_APP_QPS=0, provider-proxy with VIDEO_SHOP_APP_QPS=0 and the
      // sandbox's app key and secret: gateway-cluster.ts). As many keys as the video-ads load, so no key passes
      // its rate either.
      log(`seed: ${options.loadKeys} video-shop keys on one shop connection`);
      const shopConnection = await fixtures.videoShopConnection(loadCustomer.customer_id);
      const shopKeys: BenchKey[] = [];
      for (let i = 0; i < options.loadKeys; i += 16) {
        const batch = Math.min(16, options.loadKeys - i);
        shopKeys.push(
          ...(await Promise.all(
            Array.from({ length: batch }, () => seed(loadCustomer.customer_id, shopConnection.accountId, 'video-shop')),
          )),
        );
      }
      // The quota is the customer's: each block-mode run gets a customer of its own.
      const quotaKey = async () => {
        const customer = await fixtures!.customer('growth');
        return seed(customer.customer_id, (await fixtures!.videoAdsConnection(customer.customer_id)).accountId);
      };
      const quotaKeys = { plain: await quotaKey(), crash: await quotaKey() };
      const environment = new BenchEnvironment(
        nats,
        mongo,
        dbUri,
        cluster,
        fixtures,
        stream,
        unary,
        plans,
        loadKeys,
        hotKey,
        quotaKeys,
        { token: connection.token, advertiserId: connection.advertiserIds[0]! },
        shopKeys,
        { accountId: shopConnection.accountId, shopId: shopConnection.shopId },
      );
      environment.profiling = options.profileDir !== undefined;
      environment.profiledEnv = profiled;
      return environment;
    } catch (error) {
      await fixtures?.close().catch(() => undefined);
      await cluster?.stop().catch(() => undefined);
      await mongo.stop();
      await nats.stop();
      throw error;
    }
  }

  /** Quota-actors still running (the accuracy runs kill one). */
  liveActors(): RunningService[] {
    return this.cluster.actors.filter((actor) => actor.process.exitCode === null && actor.process.signalCode === null);
  }

  /** The display name of a cluster process (edges by transport). */
  serviceName(service: RunningService): string {
    if (service === this.edges.unary) return 'edge-auth (unary)';
    if (service.name === 'edge-auth') return 'edge-auth (stream)';
    return service.name;
  }

  /**
   * Runs `work` with the V8 sampling profiler on in `services` (with --profile; SIGUSR2 toggles the profiler that
   * profile/cpu-profile.preload.cjs installs), so a profile covers exactly one measured window.
   */
  async profile<T>(label: string, services: RunningService[], work: () => Promise<T>): Promise<T> {
    if (!this.profiling) return work();
    for (const service of services) service.process.kill('SIGUSR2');
    try {
      return await work();
    } finally {
      for (const service of services) {
        const pid = service.process.pid!;
        service.process.kill('SIGUSR2');
        const seq = (this.profileSeq.get(pid) ?? 0) + 1;
        this.profileSeq.set(pid, seq);
        this.profileWindows.push({ label, service: this.serviceName(service), pid, seq });
      }
    }
  }

  /** A second edge of the default transport, for the accuracy runs that go through two edges. */
  async secondEdge(): Promise<RunningService> {
    this.extraEdge ??= await this.cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream' });
    return this.extraEdge;
  }

  /** The upstream request both the gateway and nginx forward, and wrk/k6 send directly for the baseline. */
  platformPathAndQuery(): { path: string; query: string } {
    return {
      path: '/v1.3/advertiser/info/',
      query: `advertiser_ids=${encodeURIComponent(JSON.stringify([this.platform.advertiserId]))}`,
    };
  }

  /**
   * The video-shop request of the signed-path scenario: the authorized shops, which provider-proxy signs (HMAC-SHA256
   * over path, query and body), sends with the connection's token, and the sandbox verifies.
   */
  shopPathAndQuery(): { path: string; query: string } {
    return { path: '/authorization/202309/shops', query: '' };
  }

  async stop(): Promise<void> {
    // The services first: a quota-actor writes its usage as it stops, and would bring back a database dropped before
    // (on FerretDB's PostgreSQL backend, a schema left in the machine's PostgreSQL after every run).
    await this.cluster.stop().catch(() => undefined);
    // Bounded: a database that stopped answering must not keep the benchmark from ending.
    await withTimeout(this.fixtures.store.connection.dropDatabase(), 15_000).catch(() => undefined);
    await withTimeout(this.fixtures.close(), 15_000).catch(() => undefined);
    await this.mongo.stop().catch(() => undefined);
    await this.nats.stop().catch(() => undefined);
  }
}

/** Environment for one kind of service from a JSON object in `name` (probes: a NODE_OPTIONS preload, V8 flags). */
function extraEnv(name: 'BENCH_PROXY_ENV' | 'BENCH_ACTOR_ENV' | 'BENCH_EDGE_ENV'): Record<string, string> {
  const value = process.env[name];
  if (!value) return {};
  try {
    return JSON.parse(value) as Record<string, string>;
  } catch (error) {
    throw new Error(`${name} is not a JSON object of variables: ${(error as Error).message}`);
  }
}

/** The machine's PostgreSQL, as its local superuser (BENCH_FERRETDB_POSTGRESQL_URL names another; `none`: SQLite). */
const LOCAL_POSTGRESQL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * FerretDB on PostgreSQL when one answers, else on SQLite files. On SQLite every update scans its collection, so the
 * quota-actors' usage flush grows with the keys the runs have used and takes CPU from the gateway processes being
 * measured (docs/benchmarks.md, "FerretDB in the figures"); on PostgreSQL updates by `_id` use the index, as MongoDB's.
 */
async function benchMongo(log: (message: string) => void): Promise<MongoHandle> {
  const configured = process.env.BENCH_FERRETDB_POSTGRESQL_URL;
  const postgresqlUrl = configured === 'none' ? undefined : (configured ?? LOCAL_POSTGRESQL);
  if (postgresqlUrl === undefined) return ensureMongo({ log });
  return ensureMongoPreferringPostgresql({ log, postgresqlUrl, startTimeoutMs: 15_000 });
}

function withQueryOption(uri: string, name: string, value: string): string {
  if (new RegExp(`[?&]${name}=`).test(uri)) return uri;
  return `${uri}${uri.includes('?') ? '&' : '?'}${name}=${value}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
