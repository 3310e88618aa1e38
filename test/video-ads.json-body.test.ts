import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { rawRequest, testDatabaseUri, testNatsUrl, type RawResponse } from './harness';

/**
 * video-ads reads take their parameters as a JSON body on GET, as the platform does (docs/providers.md, video-ads;
 * catalogue JSON_BODY_ON_GET): end to end through edge-auth, quota-actor and provider-proxy to the platform
 * sandbox, which merges the body into the call's parameters. A body goes only to an endpoint that takes one
 * (docs/rest.md, rule 7b): elsewhere it is refused before anything is counted, and never reaches the platform.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;

const CAMPAIGNS = '/v1/video-ads/v1.3/campaign/get/';
const JSON_TYPE = { 'Content-Type': 'application/json' };

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000, monthly_quota: 100_000 });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

async function sellerKey() {
  const customer = await fixtures.customer('trial');
  const ads = await fixtures.videoAdsConnection(customer.customer_id);
  const shop = await fixtures.videoShopConnection(customer.customer_id);
  const { secret } = await fixtures.key({
    customerId: customer.customer_id,
    providers: ['video-ads', 'video-shop'],
    accountIds: [ads.accountId, shop.accountId],
  });
  return { secret, ads, shop };
}

async function quotaUsed(secret: string): Promise<number> {
  return (await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).json<{ quota_used: number }>()
    .quota_used;
}

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.json<{ code: string }>().code }).toEqual({ status, code });
  expect(response.headers['content-type']).toBe('application/problem+json');
}

interface CampaignList {
  code: number;
  data: { list: { campaign_id: string }[]; page_info: { total_number: number } };
}

describe('video-ads: a JSON body on GET', () => {
  it('reaches the platform byte for byte on a read that takes one, and the answer follows its filter', async () => {
    const { secret, ads } = await sellerKey();
    const headers = { 'X-API-Key': secret, 'X-Account-Id': ads.accountId };
    const advertiser = ads.advertiserIds[0]!;

    const all = await rawRequest(edge, `${CAMPAIGNS}?advertiser_id=${advertiser}&page_size=100`, { headers });
    expect(all.status).toBe(200);
    const everyCampaign = all.json<CampaignList>().data;
    expect(everyCampaign.list.length).toBeGreaterThan(1);
    const chosen = everyCampaign.list[1]!.campaign_id;

    const { lastSeq } = await fixtures.sandboxRequests();
    // Spacing, key order and a real JSON array as the platform takes them; the bytes must arrive unchanged
    // (a signature or the platform's parser may depend on them).
    const body = `{ "filtering": {"campaign_ids": ["${chosen}"]},\n  "advertiser_id": "${advertiser}", "page_size": 100 }`;
    const filtered = await rawRequest(edge, CAMPAIGNS, { headers: { ...headers, ...JSON_TYPE }, body });
    expect(filtered.status).toBe(200);
    const answer = filtered.json<CampaignList>();
    expect(answer.code).toBe(0);
    expect(answer.data.list.map((campaign) => campaign.campaign_id)).toEqual([chosen]);
    expect(answer.data.page_info.total_number).toBe(1);

    const arrived = (await fixtures.sandboxRequests(lastSeq)).requests;
    expect(arrived.map((request) => [request.method, request.path])).toEqual([['GET', '/open_api/v1.3/campaign/get/']]);
    expect(arrived[0]!.body).toBe(body);
    expect(arrived[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(arrived[0]!.headers['access-token']).toBe(ads.token);
    // Both reads reached the platform and count, with or without a body.
    expect(await quotaUsed(secret)).toBe(2);
  });

  it('refuses a body where no allowlisted read takes one, or one that breaks the body rules, counting nothing', async () => {
    const { secret, ads, shop } = await sellerKey();
    const adsHeaders = { 'X-API-Key': secret, 'X-Account-Id': ads.accountId, ...JSON_TYPE };
    const advertiser = ads.advertiserIds[0]!;
    const { lastSeq } = await fixtures.sandboxRequests();

    // Every video-ads read takes a body; what takes none is off the allowlist (a write): refused on the path,
    // with or without a body, whatever the method.
    for (const method of ['GET', 'POST']) {
      const write = await rawRequest(edge, '/v1/video-ads/v1.3/campaign/create/', {
        method,
        headers: adsHeaders,
        body: `{"advertiser_id":"${advertiser}","campaign_name":"x"}`,
      });
      expectProblem(write, 403, 'path_not_allowed');
    }
    // A GET read of another platform that takes no body: refused, not dropped (docs/rest.md rule 7b).
    const shops = await rawRequest(edge, '/v1/video-shop/authorization/202309/shops', {
      headers: { 'X-API-Key': secret, 'X-Account-Id': shop.accountId, ...JSON_TYPE },
      body: '{"page_size":5}',
    });
    expectProblem(shops, 400, 'invalid_request');
    expect(shops.json<{ detail: string }>().detail).toMatch(/takes no body/);

    // On a read that takes one: JSON only, at most 64 KiB, and JSON at all.
    const asForm = await rawRequest(edge, CAMPAIGNS, {
      headers: { ...adsHeaders, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `advertiser_id=${advertiser}`,
    });
    expectProblem(asForm, 415, 'unsupported_media_type');
    const huge = JSON.stringify({ advertiser_id: advertiser, note: 'x'.repeat(64 * 1024) });
    expectProblem(await rawRequest(edge, CAMPAIGNS, { headers: adsHeaders, body: huge }), 413, 'payload_too_large');
    const broken = await rawRequest(edge, CAMPAIGNS, { headers: adsHeaders, body: `{"advertiser_id":${advertiser}` });
    expectProblem(broken, 400, 'invalid_request');

    expect((await fixtures.sandboxRequests(lastSeq)).requests).toEqual([]);
    expect(await quotaUsed(secret)).toBe(0);
  });
});
