import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * Token renewal across replicas: video-shop access tokens that live 3 s, two provider-proxy replicas (each behind
 * its own edge) under concurrent load. Renewal is single-flight across both through the NATS lease: the rotating
 * refresh token is never used twice, renewals come once per expiry, and no caller sees an error.
 */
const ACCESS_TTL_MS = 3_000;
const RENEW_AHEAD_MS = 1_000;
const LOAD_MS = 8_000;

let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
const edges: string[] = [];

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    edges: 1,
    actors: 1,
    sandboxEnv: { SANDBOX_VIDEO_SHOP_ACCESS_TOKEN_TTL_MS: String(ACCESS_TTL_MS) },
    proxyEnv: { VIDEO_SHOP_RENEW_AHEAD_MS: String(RENEW_AHEAD_MS), CREDENTIAL_CACHE_TTL_MS: '500' },
  });
  const second = await cluster.startProxy();
  edges.push(cluster.edges[0]!.url);
  edges.push((await cluster.startEdge({ PROVIDER_PROXY_ADDRESS: new URL(second.urls.grpc!).host })).url);
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

describe('video-shop token renewal', () => {
  it('renews once per expiry across two replicas under load, with no error for any caller', async () => {
    const customer = await fixtures.customer();
    await fixtures.setPlan('trial', { rate_limit_rps: 10_000, monthly_quota: 1_000_000 });
    const shop = await fixtures.videoShopConnection(customer.customer_id);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['video-shop'],
      accountIds: [shop.accountId],
    });
    const { lastSeq } = await fixtures.sandboxRequests();

    const statuses = new Map<string, number>();
    const stopAt = Date.now() + LOAD_MS;
    const worker = async (edge: string) => {
      while (Date.now() < stopAt) {
        const response = await rawRequest(edge, '/v1/video-shop/authorization/202309/shops', {
          headers: { 'X-API-Key': secret },
        });
        const code = response.status === 200 ? String(response.json<{ code: number }>().code) : 'http';
        const key = `${response.status}/${code}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(edges.flatMap((edge) => [worker(edge), worker(edge), worker(edge), worker(edge)]));

    expect([...statuses.keys()]).toEqual(['200/0']);
    expect(statuses.get('200/0')).toBeGreaterThan(100);

    const log = (await fixtures.sandboxRequests(lastSeq)).requests;
    const refreshes = log.filter((request) => request.path === '/video-shop-auth/api/v2/token/refresh');
    const usedRefreshTokens = refreshes.map((request) => new URLSearchParams(request.query).get('refresh_token'));
    // A rotating refresh token used twice would kill the grant: every renewal used a different one.
    expect(new Set(usedRefreshTokens).size).toBe(refreshes.length);
    // Tokens live 3 s and are renewed 1 s before expiry: over 8 s of load that is 3 or 4 renewals, 2 s apart,
    // never two for one expiry (which would come milliseconds apart).
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    expect(refreshes.length).toBeLessThanOrEqual(Math.ceil(LOAD_MS / (ACCESS_TTL_MS - RENEW_AHEAD_MS)) + 1);
    const times = refreshes.map((request) => Date.parse(request.time));
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[i - 1]!).toBeGreaterThan(ACCESS_TTL_MS - RENEW_AHEAD_MS - 1_000);
    }

    const apiCalls = log.filter((request) => request.path.startsWith('/video-shop/'));
    const tokensUsed = new Set(apiCalls.map((request) => request.headers['x-tts-access-token']));
    expect(tokensUsed.size).toBe(refreshes.length + 1);
    // The renewed tokens were stored before use: the connection holds the last one.
    const lastToken = apiCalls.at(-1)!.headers['x-tts-access-token'];
    const stored = await fixtures.store.connections.loadCredentials(shop.accountId);
    expect(stored?.access_token).toBe(lastToken);
  }, 60_000);
});
