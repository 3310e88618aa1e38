import type { Harness } from '../testing/sandbox.harness';
import {
  accessToken,
  apiCall,
  registerClient,
  startSearchAdsSandbox,
  US_ORG,
  EU_ORG,
} from './testing/search-ads.harness';

type Row = Record<string, unknown> & { id: number };
/* A report row as the tests read it (loose on purpose: the test checks its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

describe('search-ads read endpoints', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSearchAdsSandbox();
    token = await accessToken(h, await registerClient(h));
  });
  afterAll(() => h.close());

  it('lists the orgs of the API user on /acls without X-AP-Context', async () => {
    const { status, body } = await apiCall<Record<string, unknown>[]>(h, 'GET', '/acls', { token });
    expect(status).toBe(200);
    expect(body.error).toBeNull();
    expect(body.data.map((org) => org.orgId)).toHaveLength(3);
    expect(body.data[0]).toMatchObject({
      orgId: US_ORG.orgId,
      orgName: US_ORG.orgName,
      currency: 'USD',
      timeZone: 'America/Los_Angeles',
      paymentModel: 'PAYG',
      displayName: US_ORG.orgName,
    });
    expect(Array.isArray(body.data[0]?.roleNames)).toBe(true);
    const me = await apiCall<Record<string, unknown>>(h, 'GET', '/me', { token });
    expect(me.body.data).toEqual({ userId: expect.any(Number), parentOrgId: expect.any(Number) });
  });

  it('pages the campaign list to its end by offset, with ids above 2^32 as bare JSON numbers', async () => {
    const seen: Row[] = [];
    let total = Infinity;
    for (let offset = 0; offset < total; offset += 10) {
      const { status, body, text } = await apiCall<Row[]>(h, 'GET', `/campaigns?limit=10&offset=${offset}`, {
        token,
        orgId: US_ORG.orgId,
      });
      expect(status).toBe(200);
      total = body.pagination?.totalResults ?? 0;
      expect(body.pagination).toEqual({ totalResults: total, startIndex: offset, itemsPerPage: body.data.length });
      for (const campaign of body.data) {
        if (campaign.id > 2 ** 32) expect(text).toContain(`"id":${campaign.id},`);
      }
      seen.push(...body.data);
    }
    expect(total).toBeGreaterThan(20);
    expect(new Set(seen.map((campaign) => campaign.id)).size).toBe(total);
    expect(seen.some((campaign) => campaign.id > 2 ** 32)).toBe(true);
    expect(seen.every((campaign) => Number.isSafeInteger(campaign.id))).toBe(true);
    expect(seen[0]).toMatchObject({
      orgId: US_ORG.orgId,
      dailyBudgetAmount: { amount: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'USD' },
      status: expect.stringMatching(/^(ENABLED|PAUSED)$/),
      deleted: false,
      adChannelType: expect.any(String),
      supplySources: expect.any(Array),
      countriesOrRegions: expect.any(Array),
    });
    const defaultPage = await apiCall<Row[]>(h, 'GET', '/campaigns', { token, orgId: US_ORG.orgId });
    expect(defaultPage.body.data).toHaveLength(20);
  });

  it('reads one campaign, its ad groups and their keywords', async () => {
    const list = await apiCall<Row[]>(h, 'GET', '/campaigns?limit=1000', { token, orgId: EU_ORG.orgId });
    const campaign = list.body.data.find((item) => (item.supplySources as string[])[0] === 'APPSTORE_SEARCH_RESULTS');
    if (!campaign) throw new Error('no search results campaign');
    const one = await apiCall<Row>(h, 'GET', `/campaigns/${campaign.id}`, { token, orgId: EU_ORG.orgId });
    expect(one.body.data).toEqual(campaign);
    const groups = await apiCall<Row[]>(h, 'GET', `/campaigns/${campaign.id}/adgroups`, { token, orgId: EU_ORG.orgId });
    expect(groups.status).toBe(200);
    const group = groups.body.data[0] as Row;
    expect(group).toMatchObject({
      campaignId: campaign.id,
      pricingModel: 'CPC',
      defaultBidAmount: { currency: 'EUR' },
    });
    const keywords = await apiCall<Row[]>(
      h,
      'GET',
      `/campaigns/${campaign.id}/adgroups/${group.id}/targetingkeywords?limit=5`,
      { token, orgId: EU_ORG.orgId },
    );
    expect(keywords.status).toBe(200);
    expect(keywords.body.data.length).toBeGreaterThan(0);
    expect(keywords.body.data[0]).toMatchObject({
      adGroupId: group.id,
      matchType: expect.stringMatching(/^(EXACT|BROAD)$/),
      bidAmount: { currency: 'EUR' },
      deleted: false,
    });
  });

  it('answers a daily campaign report with row totals and grand totals', async () => {
    const query = {
      startTime: '2026-10-01',
      endTime: '2026-10-07',
      granularity: 'DAILY',
      timeZone: 'UTC',
      selector: { orderBy: [{ field: 'localSpend', sortOrder: 'DESCENDING' }], pagination: { offset: 0, limit: 5 } },
      returnRowTotals: true,
      returnGrandTotals: true,
      returnRecordsWithNoMetrics: false,
    };
    const { status, body } = await apiCall<{
      reportingDataResponse: { row: Record<string, Loose>[]; grandTotals: Loose };
    }>(h, 'POST', '/reports/campaigns', { token, orgId: US_ORG.orgId, body: query });
    expect(status).toBe(200);
    const rows = body.data.reportingDataResponse.row;
    expect(rows).toHaveLength(5);
    expect(body.pagination).toMatchObject({ startIndex: 0, itemsPerPage: 5 });
    const first = rows[0] as Record<string, Loose>;
    expect(first.metadata).toMatchObject({ campaignId: expect.any(Number), campaignName: expect.any(String) });
    expect(first.granularity).toHaveLength(7);
    expect(first.granularity[0]).toMatchObject({ date: '2026-10-01', localSpend: { currency: 'USD' } });
    const spend = (entry: { localSpend: { amount: string } }): number => Number(entry.localSpend.amount);
    const summed = first.granularity.reduce((sum: number, entry: Loose) => sum + entry.impressions, 0);
    expect(first.total.impressions).toBe(summed);
    expect(spend(rows[0]?.total)).toBeGreaterThanOrEqual(spend(rows[1]?.total));
    expect(body.data.reportingDataResponse.grandTotals.total.impressions).toBeGreaterThanOrEqual(summed);

    const again = await apiCall(h, 'POST', '/reports/campaigns', { token, orgId: US_ORG.orgId, body: query });
    expect(again.text).toBe(JSON.stringify(body));
  });

  it('pages report rows by selector.pagination from offset 0 to the end, each row once', async () => {
    const query = (offset: number, limit: number) => ({
      startTime: '2026-10-01',
      endTime: '2026-10-07',
      groupBy: ['countryOrRegion'],
      selector: { orderBy: [{ field: 'taps', sortOrder: 'DESCENDING' }], pagination: { offset, limit } },
      returnRowTotals: true,
    });
    type Report = { reportingDataResponse: { row: Record<string, Loose>[] } };
    const whole = await apiCall<Report>(h, 'POST', '/reports/campaigns', {
      token,
      orgId: US_ORG.orgId,
      body: query(0, 1000),
    });
    const total = whole.body.pagination!.totalResults;
    expect(total).toBe(whole.body.data.reportingDataResponse.row.length);
    expect(total).toBeGreaterThan(20);

    const paged: Record<string, Loose>[] = [];
    const limit = 7;
    for (let offset = 0; offset < total; offset += limit) {
      const { status, body } = await apiCall<Report>(h, 'POST', '/reports/campaigns', {
        token,
        orgId: US_ORG.orgId,
        body: query(offset, limit),
      });
      expect(status).toBe(200);
      const rows = body.data.reportingDataResponse.row;
      expect(body.pagination).toEqual({
        totalResults: total,
        startIndex: offset,
        itemsPerPage: Math.min(limit, total - offset),
      });
      expect(rows).toHaveLength(body.pagination!.itemsPerPage);
      paged.push(...rows);
    }
    expect(paged).toEqual(whole.body.data.reportingDataResponse.row);

    const past = await apiCall<Report>(h, 'POST', '/reports/campaigns', {
      token,
      orgId: US_ORG.orgId,
      body: query(total, limit),
    });
    expect(past.body.pagination).toEqual({ totalResults: total, startIndex: total, itemsPerPage: 0 });
    expect(past.body.data.reportingDataResponse.row).toEqual([]);
  });

  it('filters report rows by condition and splits them by storefront', async () => {
    const list = await apiCall<Row[]>(h, 'GET', '/campaigns?limit=1000', { token, orgId: US_ORG.orgId });
    const enabled = list.body.data.filter(
      (c) => c.status === 'ENABLED' && (c.countriesOrRegions as string[]).length > 1,
    );
    const target = enabled[0] as Row;
    const { body } = await apiCall<{ reportingDataResponse: { row: Record<string, Loose>[] } }>(
      h,
      'POST',
      '/reports/campaigns',
      {
        token,
        orgId: US_ORG.orgId,
        body: {
          startTime: '2026-10-01',
          endTime: '2026-10-31',
          groupBy: ['countryOrRegion'],
          selector: {
            conditions: [{ field: 'campaignId', operator: 'EQUALS', values: [String(target.id)] }],
            pagination: { offset: 0, limit: 100 },
          },
          returnRowTotals: true,
        },
      },
    );
    const rows = body.data.reportingDataResponse.row;
    expect(rows.map((row) => row.metadata.countryOrRegion)).toEqual(target.countriesOrRegions);
    expect(rows.every((row) => row.metadata.campaignId === target.id && row.granularity === undefined)).toBe(true);
  });
});
