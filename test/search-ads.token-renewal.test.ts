import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * search-ads tokens are minted, not refreshed: with tokens that live 3 s and two provider-proxy replicas (each behind
 * its own edge) under concurrent load, each connection gets one token request per expiry and no caller sees an error.
 * Tokens are renewed ahead of expiry, not after a refusal: the platform never answers the gateway 401.
 */
const TOKEN_TTL_S = 3;
const RENEW_AHEAD_MS = 1_000;
const LOAD_MS = 8_000;
/** Timer and event-loop slack between when a renewal is due and when its token request reaches the sandbox. */
const SCHEDULING_ALLOWANCE_MS = 300;

interface SandboxAnswer {
  seq: number;
  path: string;
  status: number;
}

/** The statuses the sandbox's search-ads hosts answered after `since` (its answer log, test/dev only). */
async function sandboxAnswers(since = 0): Promise<{ answers: SandboxAnswer[]; lastSeq: number }> {
  const response = await fetch(`${cluster.sandbox.url}/_sandbox/search-ads/answers?since=${since}`);
  const body = (await response.json()) as { answers: SandboxAnswer[]; last_seq: number };
  return { answers: body.answers, lastSeq: body.last_seq };
}

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
    // The logs keep every request and answer of the load, so none of them is missed.
    sandboxEnv: { SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S: String(TOKEN_TTL_S), SANDBOX_REQUEST_LOG_LIMIT: '200000' },
    proxyEnv: { SEARCH_ADS_RENEW_AHEAD_MS: String(RENEW_AHEAD_MS), CREDENTIAL_CACHE_TTL_MS: '500' },
  });
  const second = await cluster.startProxy();
  edges.push(cluster.edges[0]!.url);
  edges.push((await cluster.startEdge({ PROVIDER_PROXY_ADDRESS: new URL(second.urls.grpc!).host })).url);
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('business', { rate_limit_rps: 10_000, monthly_quota: 10_000_000 });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

describe('search-ads token minting', () => {
  it('mints one token per expiry per connection across two replicas under load, ahead of expiry, with no caller error', async () => {
    const customer = await fixtures.customer('business');
    const connections = [
      await fixtures.searchAdsConnection(customer.customer_id, 0),
      await fixtures.searchAdsConnection(customer.customer_id, 1),
    ];
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['search-ads'],
      accountIds: connections.map((c) => c.accountId),
    });
    const { lastSeq } = await fixtures.sandboxRequests();
    const { lastSeq: lastAnswer } = await sandboxAnswers();
    const outcomes = new Map<number, number>();
    const stopAt = Date.now() + LOAD_MS;
    const worker = async (edge: string, accountId: string) => {
      while (Date.now() < stopAt) {
        const response = await rawRequest(edge, '/v1/search-ads/api/v5/campaigns?limit=5', {
          headers: { 'X-API-Key': secret, 'X-Account-Id': accountId },
        });
        outcomes.set(response.status, (outcomes.get(response.status) ?? 0) + 1);
      }
    };
    await Promise.all(
      connections.flatMap((c) => edges.flatMap((edge) => [worker(edge, c.accountId), worker(edge, c.accountId)])),
    );
    expect([...outcomes.keys()]).toEqual([200]);

    const { answers } = await sandboxAnswers(lastAnswer);
    expect(answers[0]?.seq).toBe(lastAnswer + 1);
    const apiAnswers = answers.filter((answer) => answer.path.startsWith('/search-ads/api/'));
    expect(apiAnswers.length).toBeGreaterThan(0);
    expect(apiAnswers.filter((a) => a.status === 401)).toEqual([]);

    const log = (await fixtures.sandboxRequests(lastSeq)).requests;
    for (const connection of connections) {
      const mints = log.filter(
        (r) =>
          r.path === '/search-ads-auth/auth/oauth2/token' &&
          new URLSearchParams(r.body || r.query).get('client_id') === connection.clientId,
      );
      expect(mints.length).toBeGreaterThanOrEqual(2);
      expect(mints.length).toBeLessThanOrEqual(Math.ceil(LOAD_MS / (TOKEN_TTL_S * 1000 - RENEW_AHEAD_MS)) + 1);
      const times = mints.map((r) => Date.parse(r.time));
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(
          TOKEN_TTL_S * 1000 - RENEW_AHEAD_MS - SCHEDULING_ALLOWANCE_MS,
        );
      }
    }
  }, 60_000);
});
