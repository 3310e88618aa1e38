import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { ATTACK_PATHS } from './fixtures/attack-paths';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * The REST gateway end to end (spec 4.1, 4.2, 5.1, 7, 8): two edge-auth processes, one quota-actor,
 * provider-proxy and the platform sandbox as real processes, keys and connections seeded like the portal does.
 * Edge 0 trusts 127.0.0.1 as a reverse proxy (X-Forwarded-For), edge 1 trusts nobody.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge0: string;
let edge1: string;

const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';
const CAMPAIGNS = '/v1/video-ads/v1.3/campaign/get/';
const REPORT = '/v1/video-ads/v1.3/report/integrated/get/';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  edge0 = (await cluster.startEdge({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32' })).url;
  edge1 = (await cluster.startEdge()).url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  // trial: generous rate so rule tests never trip it; growth: a tiny bucket; business: a tiny block quota.
  await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000, monthly_quota: 100_000 });
  await fixtures.setPlan('growth', { rate_limit_rps: 1, rate_burst: 2, monthly_quota: 100_000 });
  await fixtures.setPlan('business', {
    rate_limit_rps: 1000,
    rate_burst: 1000,
    monthly_quota: 3,
    overage_mode: 'block',
  });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

async function keyWithOneConnection(plan: 'trial' | 'growth' | 'business' = 'trial') {
  const customer = await fixtures.customer(plan);
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const { secret, key } = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
  return { customer, connection, secret, key };
}

function get(base: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(base, target, { headers });
}

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.json<{ code: string }>().code }).toEqual({ status, code });
  expect(response.headers['content-type']).toBe('application/problem+json');
  const body = response.json<{ request_id: string; type: string; title: string }>();
  expect(body.request_id).toBe(response.headers['x-request-id']);
  expect(body.type).toBe(`urn:gateway:error:${code}`);
}

async function quotaUsed(secret: string): Promise<number> {
  return (await get(edge0, '/v1/me', { 'X-API-Key': secret })).json<{ quota_used: number }>().quota_used;
}

describe('REST gateway - GET /v1/me (spec 4.1, 2.3)', () => {
  it('returns exactly the fields of spec 2.3 with only X-API-Key, and does not count toward the quota', async () => {
    const { secret, key, connection, customer } = await keyWithOneConnection();
    const first = await get(edge0, '/v1/me', { 'X-API-Key': secret });
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({
      key_id: key.key_id,
      customer_id: customer.customer_id,
      plan: 'trial',
      providers: ['video-ads'],
      accounts: [{ provider: 'video-ads', account_id: connection.accountId }],
      connections: 1,
      rate_limit_rps: 1000,
      monthly_quota: 100_000,
      quota_used: 0,
      overage_mode: 'block',
    });
    await get(edge1, '/v1/me', { 'X-API-Key': secret });
    expect(await quotaUsed(secret)).toBe(0);
  });
});

describe('REST gateway - authentication (spec 5.1, our 401 codes)', () => {
  it('answers 401 missing_api_key without a key and 401 invalid_api_key for a malformed one', async () => {
    expectProblem(await get(edge0, ADVERTISERS), 401, 'missing_api_key');
    expectProblem(await get(edge0, ADVERTISERS, { 'X-API-Key': 'dg_live_short' }), 401, 'invalid_api_key');
    expectProblem(await get(edge0, '/v1/me', { 'X-API-Key': 'Bearer something' }), 401, 'invalid_api_key');
  });

  it('answers 401 invalid_api_key for a well-formed key that does not exist', async () => {
    expectProblem(await get(edge0, ADVERTISERS, { 'X-API-Key': `dg_live_${'x'.repeat(40)}` }), 401, 'invalid_api_key');
  });

  it('revoke: the first request after the call returns gets 401 key_revoked on both edges (spec 3, 5.2)', async () => {
    const { secret, key } = await keyWithOneConnection();
    expect((await get(edge0, ADVERTISERS, { 'X-API-Key': secret })).status).toBe(200);
    expect((await get(edge1, ADVERTISERS, { 'X-API-Key': secret })).status).toBe(200);
    await fixtures.lifecycle.revoke(key.key_id);
    expectProblem(await get(edge1, ADVERTISERS, { 'X-API-Key': secret }), 401, 'key_revoked');
    expectProblem(await get(edge0, '/v1/me', { 'X-API-Key': secret }), 401, 'key_revoked');
  });

  it('rotate: the old key dies at once on both edges, the new one works and keeps the month count', async () => {
    const { secret, key } = await keyWithOneConnection();
    for (let i = 0; i < 3; i++) expect((await get(edge0, ADVERTISERS, { 'X-API-Key': secret })).status).toBe(200);
    const rotated = await fixtures.lifecycle.rotate(key.key_id);
    expectProblem(await get(edge1, ADVERTISERS, { 'X-API-Key': secret }), 401, 'key_revoked');
    expectProblem(await get(edge0, ADVERTISERS, { 'X-API-Key': secret }), 401, 'key_revoked');
    expect((await get(edge1, ADVERTISERS, { 'X-API-Key': rotated!.secret })).status).toBe(200);
    expect(await quotaUsed(rotated!.secret)).toBe(4);
  });
});

describe('REST gateway - connections and providers (spec 5.1 rules 1-4)', () => {
  it('a key with one connection works without X-Account-Id (rule 1)', async () => {
    const { secret } = await keyWithOneConnection();
    const response = await get(edge0, ADVERTISERS, { 'X-API-Key': secret });
    expect(response.status).toBe(200);
    expect(response.json<{ code: number; data: { list: unknown[] } }>()).toMatchObject({ code: 0, message: 'OK' });
  });

  it('a key with several connections needs X-Account-Id: 400 missing_account_id without it (rule 2)', async () => {
    const customer = await fixtures.customer();
    const first = await fixtures.videoAdsConnection(customer.customer_id, 0);
    const second = await fixtures.videoAdsConnection(customer.customer_id, 1);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      accountIds: [first.accountId, second.accountId],
    });
    expectProblem(await get(edge0, ADVERTISERS, { 'X-API-Key': secret }), 400, 'missing_account_id');
    const chosen = await get(edge1, ADVERTISERS, { 'X-API-Key': secret, 'X-Account-Id': second.accountId });
    expect(chosen.status).toBe(200);
    const ids = chosen.json<{ data: { list: { advertiser_id: string }[] } }>().data.list.map((a) => a.advertiser_id);
    expect(ids.sort()).toEqual([...second.advertiserIds].sort());
  });

  it('an X-Account-Id that is not a connection of the key gets 403 account_not_allowed (rule 3)', async () => {
    const { secret, customer } = await keyWithOneConnection();
    const stranger = await keyWithOneConnection();
    const marketplace = await fixtures.otherConnection(customer.customer_id, 'marketplace');
    const withMarketplace = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['video-ads', 'marketplace'],
      accountIds: [marketplace],
    });
    expectProblem(
      await get(edge0, ADVERTISERS, { 'X-API-Key': secret, 'X-Account-Id': stranger.connection.accountId }),
      403,
      'account_not_allowed',
    );
    expectProblem(
      await get(edge0, ADVERTISERS, { 'X-API-Key': secret, 'X-Account-Id': 'acct_doesnotexist00000' }),
      403,
      'account_not_allowed',
    );
    // an account of another provider is not a video-ads connection
    expectProblem(
      await get(edge0, ADVERTISERS, { 'X-API-Key': withMarketplace.secret, 'X-Account-Id': marketplace }),
      403,
      'account_not_allowed',
    );
  });

  it('a provider outside the key providers gets 403 provider_not_in_plan (rule 4)', async () => {
    const { secret } = await keyWithOneConnection();
    expectProblem(
      await get(edge0, '/v1/marketplace/api/v2/shop/get_shop_info', { 'X-API-Key': secret }),
      403,
      'provider_not_in_plan',
    );
  });

  it('an unknown provider id gets 404 unknown_provider, and a path off a provider allowlist path_not_allowed', async () => {
    const customer = await fixtures.customer();
    const searchAccount = await fixtures.otherConnection(customer.customer_id, 'search-ads');
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      providers: ['search-ads'],
      accountIds: [searchAccount],
    });
    expectProblem(await get(edge0, '/v1/tiktok/v1.3/campaign/get/', { 'X-API-Key': secret }), 404, 'unknown_provider');
    expectProblem(
      await get(edge0, '/v1/search-ads/api/v4/campaigns', { 'X-API-Key': secret }),
      403,
      'path_not_allowed',
    );
  });
});

describe('REST gateway - IP allowlist (spec 5.1 rule 5)', () => {
  it('admits addresses inside the IPv4 and IPv6 CIDRs and refuses others with 403 ip_not_allowed', async () => {
    const customer = await fixtures.customer();
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      accountIds: [connection.accountId],
      ipAllowlist: ['203.0.113.0/24', '2001:db8:abcd::/48'],
    });
    const via = (address: string) => ({ 'X-API-Key': secret, 'X-Forwarded-For': address });
    expect((await get(edge0, ADVERTISERS, via('203.0.113.9'))).status).toBe(200);
    expect((await get(edge0, ADVERTISERS, via('2001:db8:abcd:12::1'))).status).toBe(200);
    expectProblem(await get(edge0, ADVERTISERS, via('198.51.100.7')), 403, 'ip_not_allowed');
    expectProblem(await get(edge0, ADVERTISERS, via('2001:db8:ffff::1')), 403, 'ip_not_allowed');
    expectProblem(await get(edge0, ADVERTISERS, { 'X-API-Key': secret }), 403, 'ip_not_allowed');
  });

  it('does not believe X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const customer = await fixtures.customer();
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const { secret } = await fixtures.key({
      customerId: customer.customer_id,
      accountIds: [connection.accountId],
      ipAllowlist: ['203.0.113.0/24'],
    });
    expectProblem(
      await get(edge1, ADVERTISERS, { 'X-API-Key': secret, 'X-Forwarded-For': '203.0.113.9' }),
      403,
      'ip_not_allowed',
    );
  });
});

describe('REST gateway - the allowlist is enforced inside the service (spec 4.2, 7)', () => {
  it('refuses every disguised, write, unknown and malformed path and every method but GET, and none reaches the platform', async () => {
    const { secret } = await keyWithOneConnection();
    const { lastSeq } = await fixtures.sandboxRequests();
    const headers = { 'X-API-Key': secret };
    for (const path of ATTACK_PATHS) {
      const response = await rawRequest(edge0, `/v1/video-ads${path}?advertiser_id=1`, { headers });
      if (response.status !== 403)
        throw new Error(`${path.slice(0, 80)} answered ${response.status}: ${response.body}`);
      expectProblem(response, 403, 'path_not_allowed');
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await rawRequest(edge1, CAMPAIGNS, { method, headers, body: '{"advertiser_id":"1"}' });
      expectProblem(response, 403, 'path_not_allowed');
    }
    const head = await rawRequest(edge1, CAMPAIGNS, { method: 'HEAD', headers });
    expect(head.status).toBe(403);
    expect((await fixtures.sandboxRequests(lastSeq)).requests).toEqual([]);
  });

  it('drops caller-supplied app_id, secret, access_token and Access-Token, and passes every other parameter unchanged', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const { lastSeq } = await fixtures.sandboxRequests();
    const advertiser = connection.advertiserIds[0]!;
    const query =
      `advertiser_id=${advertiser}&app_id=evil&secret=stolen&access_token=forged&ACCESS_TOKEN=x&access%5Ftoken=y` +
      `&page_size=5&filtering=%7B%22primary_status%22%3A%22STATUS_ALL%22%7D`;
    const response = await get(edge0, `${CAMPAIGNS}?${query}`, {
      'X-API-Key': secret,
      'Access-Token': 'forged-header',
    });
    expect(response.status).toBe(200);
    const arrived = (await fixtures.sandboxRequests(lastSeq)).requests;
    expect(arrived).toHaveLength(1);
    const request = arrived[0]!;
    expect(request.path).toBe('/open_api/v1.3/campaign/get/');
    expect(request.query).toBe(
      `advertiser_id=${advertiser}&page_size=5&filtering=%7B%22primary_status%22%3A%22STATUS_ALL%22%7D`,
    );
    expect(request.headers['access-token']).toBe(connection.token);
    expect(JSON.stringify(request)).not.toMatch(/evil|stolen|forged/);
  });

  it('adds the service app_id and secret only where the platform wants them', async () => {
    const { secret } = await keyWithOneConnection();
    const { lastSeq } = await fixtures.sandboxRequests();
    await get(edge0, `${ADVERTISERS}?app_id=mine&secret=mine`, { 'X-API-Key': secret });
    const [request] = (await fixtures.sandboxRequests(lastSeq)).requests;
    const params = new URLSearchParams(request!.query);
    expect(params.getAll('app_id')).toEqual([cluster.secrets.appId]);
    expect(params.getAll('secret')).toEqual([cluster.secrets.appSecret]);
  });
});

describe('REST gateway - answers and counting (spec 7, 8)', () => {
  it('returns platform errors in the platform envelope and status, and counts them; gateway refusals do not count', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const headers = { 'X-API-Key': secret };
    const advertiser = connection.advertiserIds[0]!;
    expect((await get(edge0, `${CAMPAIGNS}?advertiser_id=${advertiser}`, headers)).status).toBe(200);
    const badParams = await get(edge1, `${REPORT}?advertiser_id=${advertiser}&report_type=WEEKLY`, headers);
    expect(badParams.status).toBe(200);
    expect(badParams.headers['content-type']).toMatch(/^application\/json/);
    expect(badParams.json()).toMatchObject({ code: 40002, data: {} });
    const notGranted = await get(edge0, `${CAMPAIGNS}?advertiser_id=7000000000000000001`, headers);
    expect(notGranted.json()).toMatchObject({ code: 40001 });
    expectProblem(await get(edge0, '/v1/video-ads/v1.3/campaign/create/', headers), 403, 'path_not_allowed');
    expectProblem(
      await get(edge0, ADVERTISERS, { ...headers, 'X-Account-Id': 'acct_notminenotmine0000' }),
      403,
      'account_not_allowed',
    );
    await get(edge0, '/v1/me', headers);
    expect(await quotaUsed(secret)).toBe(3);
  });

  it('echoes X-Request-Id, carries RateLimit headers, and gzips when asked', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const response = await get(edge0, `${CAMPAIGNS}?advertiser_id=${connection.advertiserIds[0]}&page_size=200`, {
      'X-API-Key': secret,
      'X-Request-Id': 'client-chosen-id.1',
      'Accept-Encoding': 'gzip',
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('client-chosen-id.1');
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.json<{ code: number }>().code).toBe(0);
    expect(response.headers['ratelimit-policy']).toMatch(/^"rate";q=1000;w=1, "monthly";q=100000;w=\d+$/);
    expect(response.headers['ratelimit']).toMatch(/^"rate";r=\d+;t=\d+, "monthly";r=99999;t=\d+$/);
  });

  it('pages a multi-page report to its last page with page_size=1000 and JSON-string array parameters', async () => {
    const { secret, connection } = await keyWithOneConnection();
    const params = new URLSearchParams({
      advertiser_id: connection.advertiserIds[0]!,
      report_type: 'BASIC',
      data_level: 'AUCTION_AD',
      dimensions: JSON.stringify(['ad_id', 'stat_time_day']),
      metrics: JSON.stringify(['spend', 'impressions', 'clicks']),
      start_date: '2026-10-01',
      end_date: '2026-10-30',
      page_size: '1000',
    });
    const first = await get(edge0, `${REPORT}?${params}`, { 'X-API-Key': secret });
    const pageInfo = first.json<{ data: { page_info: { total_page: number; total_number: number } } }>().data.page_info;
    expect(pageInfo.total_page).toBeGreaterThan(3);
    params.set('page', String(pageInfo.total_page));
    const last = await get(edge1, `${REPORT}?${params}`, { 'X-API-Key': secret });
    const body = last.json<{ data: { list: { metrics: Record<string, string> }[]; page_info: { page: number } } }>();
    expect(body.data.page_info.page).toBe(pageInfo.total_page);
    expect(body.data.list).toHaveLength(pageInfo.total_number - 1000 * (pageInfo.total_page - 1));
    expect(typeof body.data.list[0]!.metrics.spend).toBe('string');
  });

  it('answers 429 rate_limited with Retry-After and RateLimit headers when the bucket is empty', async () => {
    const { secret } = await keyWithOneConnection('growth');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => get(i % 2 ? edge1 : edge0, ADVERTISERS, { 'X-API-Key': secret })),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
    expect(limited).toHaveLength(4);
    expectProblem(limited[0]!, 429, 'rate_limited');
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.headers['ratelimit']).toMatch(/^"rate";r=0;t=\d+/);
  });

  it('answers 429 quota_exceeded in block mode once monthly_quota requests were forwarded', async () => {
    const { secret } = await keyWithOneConnection('business');
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await get(i % 2 ? edge1 : edge0, ADVERTISERS, { 'X-API-Key': secret })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await get(edge0, ADVERTISERS, { 'X-API-Key': secret });
    expectProblem(refused, 429, 'quota_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit']).toMatch(/"monthly";r=0;t=\d+$/);
    expect(await quotaUsed(secret)).toBe(3);
  });
});

describe('REST gateway - malformed requests', () => {
  it('answers a request line Node cannot parse with 400 invalid_request problem+json', async () => {
    const response = await rawRequest(edge0, '/v1/video-ads/v1.3/campaign/ get/', { headers: { 'X-API-Key': 'x' } });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.json()).toMatchObject({ code: 'invalid_request', status: 400 });
  });
});
