import {
  GatewayFixtures,
  startGatewayCluster,
  type GatewayCluster,
  type RunningService,
  withFreePort,
} from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * What a crash during a single-use refresh costs (docs/providers.md, marketplace): the sandbox holds each refresh
 * answer back for 1.5 s after spending the old refresh token, and the replica that asked is killed inside that
 * window. Exactly the connections whose refresh was in flight lose their grant (409 connection_needs_regrant once
 * the dead replica's lease expires); every other connection keeps working.
 */
const ANSWER_DELAY_MS = 1_500;
const RENEWAL_LEASE_TTL_MS = 3_000;
const PROVIDERS = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'] as const;
type Provider = (typeof PROVIDERS)[number];
const READS: Record<Provider, string> = {
  marketplace: '/api/v2/shop/get_shop_info',
  'marketplace-ads': '/api/v2/ads/get_total_balance',
  'marketplace-affiliate': '/api/v2/ams/get_performance_data_update_time?marker_type=AmsMarker',
};
const REFRESH_PATH = '/marketplace/api/v2/auth/access_token/get';

let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edgeA: string;
let edgeB: string;
let proxyB: RunningService;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    edges: 1,
    actors: 1,
    sandboxEnv: {
      SANDBOX_MARKETPLACE_ACCESS_TOKEN_TTL_MS: '4000',
      SANDBOX_MARKETPLACE_REFRESH_ANSWER_DELAY_MS: String(ANSWER_DELAY_MS),
      // The refreshes are read back from this log after a few thousand reads; the default keeps the last 5,000.
      SANDBOX_REQUEST_LOG_LIMIT: '200000',
    },
    proxyEnv: {
      MARKETPLACE_RENEW_AHEAD_MS: '2000',
      CREDENTIAL_CACHE_TTL_MS: '200',
      RENEWAL_LEASE_TTL_MS: String(RENEWAL_LEASE_TTL_MS),
    },
  });
  const port = await withFreePort(async (grpcPort) => {
    proxyB = await cluster.startProxy({ GRPC_PORT: String(grpcPort) });
    return grpcPort;
  });
  edgeA = cluster.edges[0]!.url;
  edgeB = (await cluster.startEdge({ PROVIDER_PROXY_ADDRESS: `127.0.0.1:${port}` })).url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('business', { rate_limit_rps: 10_000, monthly_quota: 10_000_000, connection_allowance: 100 });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

async function read(edge: string, secret: string, provider: Provider, accountId: string): Promise<string> {
  try {
    const response = await rawRequest(edge, `/v1/${provider}${READS[provider]}`, {
      headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
    });
    if (response.status !== 200) return `${response.status} ${response.json<{ code: string }>().code}`;
    return response.json<{ error: string }>().error === '' ? 'ok' : 'platform error';
  } catch {
    return 'connection error';
  }
}

describe('a crash inside a refresh', () => {
  it('costs exactly the grants whose refresh answer the killed replica never stored', async () => {
    const customer = await fixtures.customer('business');
    const connections: { provider: Provider; accountId: string; shopId: string }[] = [];
    for (const shop of [0, 1]) {
      for (const provider of PROVIDERS) {
        const made = await fixtures.marketplaceConnection(customer.customer_id, provider, shop);
        connections.push({ provider, accountId: made.accountId, shopId: made.shopId });
      }
    }
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: [...PROVIDERS],
      accountIds: connections.map((c) => c.accountId),
    });
    const { lastSeq } = await fixtures.sandboxRequests();

    // Only replica B serves, and only the first shop's three connections, so B is the one that refreshes: the
    // first refresh shows in the sandbox's log after ~2 s (tokens live 4 s, renewed 2 s ahead); B is killed while
    // its answer is held back. The second shop's connections stay idle: they must come through untouched.
    const loaded = connections.slice(0, PROVIDERS.length);
    let loading = true;
    const load = Promise.all(
      loaded.map(async (c) => {
        while (loading) await read(edgeB, secret, c.provider, c.accountId);
      }),
    );
    let inFlight: { path: string; query: string; body: string; time: string }[] = [];
    for (let waited = 0; inFlight.length === 0; waited += 20) {
      expect(waited).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight = (await fixtures.sandboxRequests(lastSeq)).requests.filter((r) => r.path === REFRESH_PATH);
    }
    // The moment of the kill is when the signal goes, not when its exit is seen (later on a busy machine).
    const killedAt = Date.now();
    await proxyB.kill9();
    loading = false;
    await load;
    const everything = (await fixtures.sandboxRequests(lastSeq)).requests;
    expect(everything[0]?.seq).toBe(lastSeq + 1);
    const log = everything.filter((r) => r.path === REFRESH_PATH);
    // Refreshes the platform took in the last ANSWER_DELAY_MS before the kill had no answer yet.
    const unanswered = log.filter((r) => killedAt - Date.parse(r.time) < ANSWER_DELAY_MS);
    const doomed = new Set(
      unanswered.map((r) => {
        const partnerId = new URLSearchParams(r.query).get('partner_id');
        const shopId = String((JSON.parse(r.body) as { shop_id: number }).shop_id);
        const provider = PROVIDERS.find((p) => cluster.secrets.marketplaceApps[p].partnerId === partnerId)!;
        return connections.find((c) => c.provider === provider && c.shopId === shopId)!.accountId;
      }),
    );
    expect(doomed.size).toBeGreaterThan(0);
    expect([...doomed].every((accountId) => loaded.some((c) => c.accountId === accountId))).toBe(true);

    // After the dead replica's lease has expired (it was last renewed before the kill), replica A finds out.
    await new Promise((resolve) => setTimeout(resolve, killedAt + RENEWAL_LEASE_TTL_MS + 500 - Date.now()));
    const outcomes: Record<string, string> = {};
    for (const c of connections) outcomes[c.accountId] = await read(edgeA, secret, c.provider, c.accountId);
    const survived = connections.filter((c) => outcomes[c.accountId] === 'ok').length;
    console.log(
      `kill -9 of a provider-proxy replica inside ${doomed.size} held-back refresh(es): ` +
        `${survived} of ${connections.length} grants survived`,
    );
    for (const c of connections) {
      expect({ account: c.accountId, outcome: outcomes[c.accountId] }).toEqual({
        account: c.accountId,
        outcome: doomed.has(c.accountId) ? '409 connection_needs_regrant' : 'ok',
      });
    }
  }, 90_000);
});
