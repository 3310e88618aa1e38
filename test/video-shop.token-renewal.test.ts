import { GatewayFixtures, startGatewayCluster, waitUntil, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * Token renewal across replicas: video-shop access tokens that live 3 s, two provider-proxy replicas (each behind
 * its own edge) under concurrent load. Renewal is single-flight across both through the NATS lease: the rotating
 * refresh token is never used twice, renewals come once per expiry and ahead of it (no read reaches the platform
 * with an expired token, so none is renewed after a refusal), and no caller sees an error.
 */
const ACCESS_TTL_MS = 3_000;
const RENEW_AHEAD_MS = 1_000;
const MIN_RENEWALS = 3;
/** Between a renewal becoming due and the read that does it reaching the platform, on a loaded machine. */
const SCHEDULING_MS = 300;
/**
 * The platform announces expiries in whole unix seconds (`access_token_expire_in`), so the gateway believes a token
 * dies up to this much before it does, and renews that much earlier.
 */
const WHOLE_SECOND_MS = 1_000;
/** A token is issued in the same turn as its refresh is logged; this covers a millisecond tick between the two. */
const ISSUE_SLACK_MS = 50;
const REFRESH_PATH = '/video-shop-auth/api/v2/token/refresh';

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
    sandboxEnv: {
      SANDBOX_VIDEO_SHOP_ACCESS_TOKEN_TTL_MS: String(ACCESS_TTL_MS),
      // Every read of the load stays in the log however fast the machine is.
      SANDBOX_REQUEST_LOG_LIMIT: '200000',
    },
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

type SandboxRequest = Awaited<ReturnType<GatewayFixtures['sandboxRequests']>>['requests'][number];

/** The sandbox's log from a sequence number on, read in increments so polling stays cheap under load. */
class LogReader {
  readonly requests: SandboxRequest[] = [];
  constructor(private seq: number) {}
  async read(): Promise<SandboxRequest[]> {
    const { requests, lastSeq } = await fixtures.sandboxRequests(this.seq);
    this.requests.push(...requests);
    this.seq = lastSeq;
    return this.requests;
  }
}

const refreshesIn = (log: SandboxRequest[]) => log.filter((request) => request.path === REFRESH_PATH);
const tokenOf = (request: SandboxRequest) => request.headers['x-tts-access-token'] as string | undefined;

describe('video-shop token renewal', () => {
  it('renews once per expiry and ahead of it across two replicas under load, with no error for any caller', async () => {
    const customer = await fixtures.customer();
    await fixtures.setPlan('trial', { rate_limit_rps: 10_000, monthly_quota: 1_000_000 });
    const shop = await fixtures.videoShopConnection(customer.customer_id);
    // The sandbox minted the first token before this: it dies by then plus its lifetime at the latest.
    const firstTokenDiesBy = Date.now() + ACCESS_TTL_MS;
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['video-shop'],
      accountIds: [shop.accountId],
    });
    const firstAnnounced = Date.parse(
      (await fixtures.store.connections.loadCredentials(shop.accountId))!.access_token_expires_at!,
    );
    const log = new LogReader((await fixtures.sandboxRequests()).lastSeq);

    // Load runs until the connection was renewed MIN_RENEWALS times (seen in the sandbox's log), so a slow machine
    // is loaded longer instead of failing; the bound on renewals below is computed from the time it took.
    const statuses = new Map<string, number>();
    const startedAt = Date.now();
    let renewedEnough = false;
    const worker = async (edge: string) => {
      while (!renewedEnough) {
        let key: string;
        try {
          const response = await rawRequest(edge, '/v1/video-shop/authorization/202309/shops', {
            headers: { 'X-API-Key': secret },
          });
          const code = response.status === 200 ? String(response.json<{ code: number }>().code) : 'http';
          key = `${response.status}/${code}`;
        } catch {
          key = 'connection error';
        }
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };
    const load = Promise.all(edges.flatMap((edge) => [worker(edge), worker(edge), worker(edge), worker(edge)]));
    try {
      await waitUntil(async () => refreshesIn(await log.read()).length >= MIN_RENEWALS, {
        timeoutMs: 20 * ACCESS_TTL_MS,
        intervalMs: 250,
        onTimeout: () => new Error(`the connection was not renewed ${MIN_RENEWALS} times`),
      });
    } finally {
      renewedEnough = true;
      await load;
    }
    const loadedMs = Date.now() - startedAt;
    expect([...statuses.keys()]).toEqual(['200/0']);
    expect(statuses.get('200/0')).toBeGreaterThan(50);

    // Each renewal's read uses the new token before it answers, so once the load is over every token was used.
    const requests = await log.read();
    const refreshes = refreshesIn(requests);
    const usedRefreshTokens = refreshes.map((request) => new URLSearchParams(request.query).get('refresh_token'));
    // A rotating refresh token used twice would kill the grant: every renewal used a different one.
    expect(new Set(usedRefreshTokens).size).toBe(refreshes.length);
    expect(refreshes.length).toBeGreaterThanOrEqual(MIN_RENEWALS);
    // A token lives at least ACCESS_TTL - WHOLE_SECOND as announced and is renewed RENEW_AHEAD before that.
    expect(refreshes.length).toBeLessThanOrEqual(
      Math.ceil(loadedMs / (ACCESS_TTL_MS - RENEW_AHEAD_MS - WHOLE_SECOND_MS)) + 1,
    );

    // Tokens in the order the platform issued them: the minted one, then one per refresh.
    const apiCalls = requests.filter((request) => request.path.startsWith('/video-shop/'));
    const tokens = [...new Set(apiCalls.map(tokenOf))];
    expect(tokens).toHaveLength(refreshes.length + 1);
    expect(tokens[0]).toBe(shop.accessToken);
    const issuedAt = refreshes.map((request) => Date.parse(request.time));

    // Once per expiry: a renewal comes when due, RENEW_AHEAD before the expiry announced for the token it replaces.
    // Between two renewals that is ACCESS_TTL - RENEW_AHEAD, less what the whole-second announcement cut off the
    // token's life (its milliseconds), less scheduling; two renewals of one expiry would come milliseconds apart.
    expect(issuedAt[0]!).toBeGreaterThan(firstAnnounced - RENEW_AHEAD_MS - SCHEDULING_MS);
    const early: { renewal: number; spacingMs: number; atLeastMs: number }[] = [];
    for (let k = 1; k < issuedAt.length; k++) {
      const cutOff = (issuedAt[k - 1]! + ACCESS_TTL_MS) % WHOLE_SECOND_MS;
      const atLeastMs = ACCESS_TTL_MS - RENEW_AHEAD_MS - cutOff - SCHEDULING_MS;
      const spacingMs = issuedAt[k]! - issuedAt[k - 1]!;
      if (spacingMs <= atLeastMs) early.push({ renewal: k + 1, spacingMs, atLeastMs });
    }
    expect(early).toEqual([]);

    // Ahead, not after a refusal: the sandbox's log keeps requests, not answers, so this reads the tokens and times
    // of the reads that reached it. A read whose token had died would have been refused (105002) and renewed.
    // When each token dies at the latest: the first by its announced expiry's next second and by its minting,
    // the others by their refresh.
    const diesBy = [
      Math.min(firstTokenDiesBy, firstAnnounced + WHOLE_SECOND_MS),
      ...issuedAt.map((at) => at + ACCESS_TTL_MS + ISSUE_SLACK_MS),
    ];
    const generation = new Map(tokens.map((token, index) => [token, index]));
    const lateReads = apiCalls.filter(
      (request) => Date.parse(request.time) >= diesBy[generation.get(tokenOf(request))!]!,
    );
    expect(lateReads.map((request) => ({ time: request.time, token: generation.get(tokenOf(request)) }))).toEqual([]);
    // Each token was first used after the refresh that issued it: the generations above are the refreshes' order.
    for (let k = 1; k < tokens.length; k++) {
      const firstUse = apiCalls.find((request) => tokenOf(request) === tokens[k])!;
      expect(Date.parse(firstUse.time)).toBeGreaterThanOrEqual(issuedAt[k - 1]!);
    }

    // The renewed tokens were stored before use: the connection holds the last one issued.
    const stored = await fixtures.store.connections.loadCredentials(shop.accountId);
    expect(stored?.access_token).toBe(tokens.at(-1));
  }, 90_000);
  it('keeps a re-grant made while the old grant is being renewed, and answers the waiting request with it', async () => {
    const customer = await fixtures.customer();
    await fixtures.setPlan('trial', { rate_limit_rps: 10_000, monthly_quota: 1_000_000 });
    const shop = await fixtures.videoShopConnection(customer.customer_id, 1);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['video-shop'],
      accountIds: [shop.accountId],
    });
    // The platform holds the next refresh long enough for the customer to re-grant while it is under way.
    const fault = await fetch(`${cluster.sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'latency', path_prefix: REFRESH_PATH, latency_ms: 1_500, count: 1 }),
    });
    expect(fault.status).toBe(201);
    const announced = Date.parse(
      (await fixtures.store.connections.loadCredentials(shop.accountId))!.access_token_expires_at!,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, announced - RENEW_AHEAD_MS - Date.now() + 50)));
    const log = new LogReader((await fixtures.sandboxRequests()).lastSeq);

    const answer = rawRequest(edges[0]!, '/v1/video-shop/authorization/202309/shops', {
      headers: { 'X-API-Key': secret },
    });
    await waitUntil(async () => refreshesIn(await log.read()).length > 0, {
      timeoutMs: 5_000,
      intervalMs: 20,
      onTimeout: () => new Error('the due token was not renewed'),
    });
    const regranted = await fixtures.regrantVideoShop(shop.accountId, shop.openId);

    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.json<{ code: number }>().code).toBe(0);
    const apiCalls = (await log.read()).filter((request) => request.path.startsWith('/video-shop/'));
    expect(apiCalls.map(tokenOf)).toEqual([regranted.access_token]);
    const stored = await fixtures.store.connections.findByAccountId(shop.accountId);
    expect(stored?.status).toBe('active');
    expect((await fixtures.store.connections.loadCredentials(shop.accountId))?.access_token).toBe(
      regranted.access_token,
    );
  }, 60_000);
});
