import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * search-ads end to end: a client written for Campaign Management API v5 sends its own Bearer token and its own
 * X-AP-Context, as it would to the platform; the gateway drops both (no caller header passes) and sends the
 * connection's token, minted from the connection's own key, and organization. Every v5 answer says the version is
 * being retired.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1_000 });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

const CLIENT_TOKEN = 'client-own-bearer-token';
const CLIENT_ORG = '99999999';

async function connected() {
  const customer = await fixtures.customer();
  const connection = await fixtures.searchAdsConnection(customer.customer_id);
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['search-ads'],
    accountIds: [connection.accountId],
  });
  return { secret, connection };
}

function call(secret: string, accountId: string, method: string, path: string, body?: object): Promise<RawResponse> {
  return rawRequest(edge, `/v1/search-ads${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${CLIENT_TOKEN}`,
      'X-AP-Context': `orgId=${CLIENT_ORG}`,
      'X-API-Key': secret,
      'X-Account-Id': accountId,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

interface Envelope<T> {
  data: T;
  pagination: { totalResults: number; startIndex: number; itemsPerPage: number } | null;
  error: unknown;
}

function expectSunset(response: RawResponse): void {
  expect(response.headers['sunset']).toBe('Tue, 26 Jan 2027 00:00:00 GMT');
  expect(response.headers['deprecation']).toBe(`@${Date.UTC(2026, 10, 25) / 1000}`);
  expect(response.headers['link']).toBe(
    '</v1/deprecations/search-ads/v5>; rel="deprecation"; type="text/html", ' +
      '</v1/deprecations/search-ads/v5>; rel="sunset"; type="text/html"',
  );
}

/**
 * A v5 list read to its end as a client of the platform pages it: limit/offset, raising offset by the items
 * received while pagination.totalResults says more follow.
 */
async function pageList<T>(secret: string, accountId: string, path: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ;) {
    const page = await call(secret, accountId, 'GET', `${path}?limit=${limit}&offset=${offset}`);
    expect(page.status).toBe(200);
    expectSunset(page);
    const answer = page.json<Envelope<T[]>>();
    expect(answer.pagination).toMatchObject({ startIndex: offset, itemsPerPage: answer.data.length });
    items.push(...answer.data);
    offset += answer.data.length;
    if (answer.data.length === 0 || offset >= answer.pagination!.totalResults) {
      expect(items).toHaveLength(answer.pagination!.totalResults);
      return items;
    }
  }
}

/** The campaign report read to its end: the same query with selector.pagination.offset raised page by page. */
async function pageReport<T>(secret: string, accountId: string, query: Record<string, unknown>, limit: number) {
  const rows: T[] = [];
  const pages: RawResponse[] = [];
  for (let offset = 0; ;) {
    const selector = { ...(query.selector as object), pagination: { offset, limit } };
    const page = await call(secret, accountId, 'POST', '/api/v5/reports/campaigns', { ...query, selector });
    expect(page.status).toBe(200);
    expectSunset(page);
    const answer = page.json<Envelope<{ reportingDataResponse: { row: T[] } }>>();
    const pageRows = answer.data.reportingDataResponse.row;
    expect(answer.pagination).toMatchObject({ startIndex: offset, itemsPerPage: pageRows.length });
    pages.push(page);
    rows.push(...pageRows);
    offset += pageRows.length;
    if (pageRows.length === 0 || offset >= answer.pagination!.totalResults) {
      expect(rows).toHaveLength(answer.pagination!.totalResults);
      return { rows, pages };
    }
  }
}

describe('search-ads through the gateway', () => {
  it("reads every endpoint with a client of the platform, pages every list and the report to the end, and sends the connection's token and org", async () => {
    const { secret, connection } = await connected();
    const { lastSeq } = await fixtures.sandboxRequests();

    const acls = await call(secret, connection.accountId, 'GET', '/api/v5/acls');
    expect(acls.status).toBe(200);
    expectSunset(acls);
    expect(acls.json<Envelope<{ orgId: number }[]>>().data.map((org) => String(org.orgId))).toContain(connection.orgId);
    expect((await call(secret, connection.accountId, 'GET', '/api/v5/me')).status).toBe(200);

    const campaigns = await pageList<{ id: number }>(secret, connection.accountId, '/api/v5/campaigns', 10);
    expect(campaigns.length).toBeGreaterThan(10);
    expect(new Set(campaigns.map((c) => c.id)).size).toBe(campaigns.length);
    // Ids above 2^32 come through as the platform's exact digits.
    const raw = (await call(secret, connection.accountId, 'GET', '/api/v5/campaigns?limit=1000')).body.toString();
    expect([...raw.matchAll(/"id":(\d+)/g)].some((match) => BigInt(match[1]!) > 2n ** 32n)).toBe(true);

    const campaignId = campaigns[0]!.id;
    const one = await call(secret, connection.accountId, 'GET', `/api/v5/campaigns/${campaignId}`);
    expect(one.json<Envelope<{ id: number }>>().data.id).toBe(campaignId);
    const adgroups = await pageList<{ id: number; campaignId: number }>(
      secret,
      connection.accountId,
      `/api/v5/campaigns/${campaignId}/adgroups`,
      2,
    );
    expect(adgroups.length).toBeGreaterThan(0);
    expect(adgroups.every((group) => group.campaignId === campaignId)).toBe(true);
    expect(new Set(adgroups.map((group) => group.id)).size).toBe(adgroups.length);
    for (const adgroup of adgroups) {
      const keywords = await pageList<{ id: number; adGroupId: number }>(
        secret,
        connection.accountId,
        `/api/v5/campaigns/${campaignId}/adgroups/${adgroup.id}/targetingkeywords`,
        5,
      );
      expect(keywords.every((keyword) => keyword.adGroupId === adgroup.id)).toBe(true);
      expect(new Set(keywords.map((keyword) => keyword.id)).size).toBe(keywords.length);
    }

    const query = {
      startTime: '2026-11-16',
      endTime: '2026-11-22',
      granularity: 'DAILY',
      selector: { orderBy: [{ field: 'localSpend', sortOrder: 'DESCENDING' }] },
      returnRowTotals: true,
      returnGrandTotals: true,
      returnRecordsWithNoMetrics: false,
    };
    const { rows, pages } = await pageReport<{
      metadata: { campaignId: number };
      total: { localSpend: { amount: string } };
    }>(secret, connection.accountId, query, 10);
    expect(pages.length).toBeGreaterThan(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.metadata.campaignId)).size).toBe(rows.length);
    const spend = rows.map((row) => Number(row.total.localSpend.amount));
    expect(spend).toEqual([...spend].sort((a, b) => b - a));

    const seen = (await fixtures.sandboxRequests(lastSeq)).requests.filter((r) => r.path.startsWith('/search-ads/'));
    expect(seen.length).toBeGreaterThanOrEqual(8);
    for (const request of seen) {
      expect(request.headers['authorization']).toBe(`Bearer ${connection.accessToken}`);
      const context = request.headers['x-ap-context'];
      if (request.path === '/search-ads/api/v5/acls' || request.path === '/search-ads/api/v5/me') {
        expect(context).toBeUndefined();
      } else {
        expect(context).toBe(`orgId=${connection.orgId}`);
      }
      expect(JSON.stringify(request)).not.toContain(CLIENT_TOKEN);
      expect(JSON.stringify(request)).not.toContain(CLIENT_ORG);
    }
  }, 60_000);

  it('lists the retirement of v5 at /v1/deprecations and serves the page the Link names, without a key', async () => {
    const response = await rawRequest(edge, '/v1/deprecations');
    expect(response.status).toBe(200);
    expect(response.json<{ deprecations: unknown[] }>().deprecations).toEqual([
      expect.objectContaining({
        provider: 'search-ads',
        version: 'v5',
        sunset: '2027-01-26',
        documentation: '/v1/deprecations/search-ads/v5',
      }),
    ]);
    const page = await rawRequest(edge, '/v1/deprecations/search-ads/v5');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body.toString()).toContain('Retired by the platform on 2027-01-26');
    expect((await rawRequest(edge, '/v1/deprecations/search-ads/v4')).status).toBe(404);
  });

  it("marks the gateway's own refusals on v5 paths and the platform's errors with the sunset too", async () => {
    const { secret, connection } = await connected();
    const refusals = [
      await call(secret, connection.accountId, 'GET', '/api/v5/campaigns/9999999999'), // the platform's 404
      await call('gw_wrong_key', connection.accountId, 'GET', '/api/v5/campaigns'), // 401
      await call(secret, 'acc_not_on_this_key', 'GET', '/api/v5/campaigns'), // 403 account
      await call(secret, connection.accountId, 'DELETE', '/api/v5/campaigns/1'), // 403 path
      await rawRequest(edge, '/v1/search-ads/api/v5/campaigns', { headers: { 'X-Account-Id': connection.accountId } }),
    ];
    expect(refusals.map((response) => response.status)).toEqual([404, 401, 403, 403, 401]);
    for (const response of refusals) expectSunset(response);
    const other = await rawRequest(edge, '/v1/video-ads/v1.3/campaign/get/', { headers: { 'X-API-Key': secret } });
    expect(other.headers['sunset']).toBeUndefined();
  });

  it.each([
    ['POST', '/api/v5/campaigns'],
    ['PUT', '/api/v5/campaigns/1234567890'],
    ['DELETE', '/api/v5/campaigns/1234567890'],
    ['POST', '/api/v5/campaigns/1234567890/adgroups'],
    ['PUT', '/api/v5/campaigns/1234567890/adgroups/2345678901'],
    ['POST', '/api/v5/campaigns/1234567890/adgroups/2345678901/targetingkeywords/bulk'],
    ['GET', '/api/v5/campaigns/..%2F'],
    ['GET', '/api/v5/campaigns/1;x'],
    ['GET', '/api/v5/campaigns/abc'],
    ['GET', '/api/v5/campaigns/%31%32'],
    ['GET', '/api/v5/reports/campaigns'],
    ['POST', '/api/v5/reports/campaigns/'],
  ])('refuses %s %s with 403 path_not_allowed before the sandbox', async (method, path) => {
    const { secret, connection } = await connected();
    const { lastSeq } = await fixtures.sandboxRequests();
    const response = await call(secret, connection.accountId, method, path, {});
    expect([response.status, response.json<{ code: string }>().code]).toEqual([403, 'path_not_allowed']);
    expectSunset(response);
    const after = await fixtures.sandboxRequests(lastSeq);
    expect(after.requests.filter((r) => r.path.startsWith('/search-ads'))).toEqual([]);
  });

  it('refuses a report body that does not fit the schema without counting it', async () => {
    const { secret, connection } = await connected();
    const used = async () =>
      (await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).json<{ quota_used: number }>()
        .quota_used;
    const before = await used();
    const response = await call(secret, connection.accountId, 'POST', '/api/v5/reports/campaigns', {
      startTime: '2026-11-16',
      endTime: '2026-11-22',
    });
    expect([response.status, response.json<{ code: string }>().code]).toEqual([400, 'invalid_request']);
    expect(response.json<{ detail: string }>().detail).toContain('selector');
    expectSunset(response);
    expect(await used()).toBe(before);
  });

  it('answers 409 connection_needs_regrant once the API user is deleted at the platform', async () => {
    const { secret, connection } = await connected();
    expect((await call(secret, connection.accountId, 'GET', '/api/v5/campaigns?limit=1')).status).toBe(200);
    await fetch(`${cluster.sandbox.url}/_sandbox/search-ads/api-users/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: connection.clientId }),
    });
    const refused = await call(secret, connection.accountId, 'GET', '/api/v5/campaigns?limit=1');
    expect([refused.status, refused.json<{ code: string }>().code]).toEqual([409, 'connection_needs_regrant']);
    expect(refused.body.toString()).not.toContain('UNAUTHORIZED');
  });
});
