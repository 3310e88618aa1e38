import type { LoggedRequest } from '../control/request-log';
import type { Harness } from '../testing/sandbox.harness';
import { accessToken, apiCall, registerClient, startSearchAdsSandbox, US_ORG } from './testing/search-ads.harness';

describe('search-ads write endpoints', () => {
  let h: Harness;
  let token: string;
  let campaignId: number;
  let adGroupId: number;

  beforeAll(async () => {
    h = await startSearchAdsSandbox();
    token = await accessToken(h, await registerClient(h));
    const list = await apiCall<{ id: number }[]>(h, 'GET', '/campaigns?limit=1', { token, orgId: US_ORG.orgId });
    campaignId = list.body.data[0]?.id as number;
    const groups = await apiCall<{ id: number }[]>(h, 'GET', `/campaigns/${campaignId}/adgroups`, {
      token,
      orgId: US_ORG.orgId,
    });
    adGroupId = groups.body.data[0]?.id as number;
  });
  afterAll(() => h.close());

  it('answers every write with success and records it in the request log', async () => {
    const writes: [string, string, unknown][] = [
      ['POST', '/campaigns', { name: 'New', adamId: 1400000000, dailyBudgetAmount: { amount: '50', currency: 'USD' } }],
      ['PUT', `/campaigns/${campaignId}`, { campaign: { status: 'PAUSED' } }],
      ['DELETE', `/campaigns/${campaignId}`, undefined],
      ['POST', `/campaigns/${campaignId}/adgroups`, { name: 'G', defaultBidAmount: { amount: '1', currency: 'USD' } }],
      ['PUT', `/campaigns/${campaignId}/adgroups/${adGroupId}`, { status: 'PAUSED' }],
      [
        'POST',
        `/campaigns/${campaignId}/adgroups/${adGroupId}/targetingkeywords/bulk`,
        [{ text: 'budget app', matchType: 'EXACT', bidAmount: { amount: '1.5', currency: 'USD' } }],
      ],
    ];
    const since = h.sandbox.requestLog?.lastSeq() ?? 0;
    for (const [method, path, body] of writes) {
      const answer = await apiCall(h, method, path, { token, orgId: US_ORG.orgId, body });
      expect({ path, status: answer.status, error: answer.body.error }).toEqual({ path, status: 200, error: null });
    }
    const response = await fetch(`${h.url}/_sandbox/requests?since=${since}&path_prefix=/search-ads/`);
    const { requests } = (await response.json()) as { requests: LoggedRequest[] };
    expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
      writes.map(([method, path]) => `${method} /search-ads/api/v5${path}`),
    );
    expect(JSON.parse(requests[0]?.body ?? '{}')).toEqual(writes[0]?.[2]);
    expect(requests[0]?.headers['x-ap-context']).toBe(`orgId=${US_ORG.orgId}`);
  });

  it('changes nothing: the campaign still reads as before', async () => {
    const campaign = await apiCall<{ id: number; deleted: boolean }>(h, 'GET', `/campaigns/${campaignId}`, {
      token,
      orgId: US_ORG.orgId,
    });
    expect(campaign.status).toBe(200);
    expect(campaign.body.data.deleted).toBe(false);
  });

  it('needs a valid token and X-AP-Context on writes, like reads', async () => {
    const body = { name: 'New', adamId: 1 };
    expect((await apiCall(h, 'POST', '/campaigns', { orgId: US_ORG.orgId, body })).status).toBe(401);
    expect((await apiCall(h, 'POST', '/campaigns', { token, body })).status).toBe(403);
    const invalid = await apiCall(h, 'POST', '/campaigns', { token, orgId: US_ORG.orgId, body: { adamId: 1 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error?.errors[0]).toMatchObject({ messageCode: 'INVALID_ATTRIBUTE_VALUE', field: 'name' });
  });
});
