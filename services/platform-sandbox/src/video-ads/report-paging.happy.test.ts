import { SANDBOX_BUSINESS_CENTERS } from './sandbox-accounts';
import {
  NORTHWIND_BC,
  NORTHWIND_US,
  startSandbox,
  type Harness,
  type PageInfo,
  type ReportRow,
} from '../testing/sandbox.harness';

type Report = { list: ReportRow[]; page_info: PageInfo };

const AD_BY_DAY = {
  report_type: 'BASIC',
  data_level: 'AUCTION_AD',
  dimensions: ['ad_id', 'stat_time_day'],
  metrics: ['spend', 'impressions', 'clicks', 'conversion'],
  start_date: '2026-10-01',
  end_date: '2026-10-30',
};

const sum = (rows: ReportRow[], metric: string): number =>
  rows.reduce((total, row) => total + Number(row.metrics[metric]), 0);

describe('video-ads report paging and consistency', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSandbox();
    token = await h.grant({ bc_ids: SANDBOX_BUSINESS_CENTERS.map((bc) => bc.bc_id) });
  });
  afterAll(() => h.close());

  it('pages an ad-by-day report of more than 3000 rows to its last page at page_size 1000', async () => {
    const first = await h.get<Report>(
      '/report/integrated/get/',
      { ...AD_BY_DAY, advertiser_id: NORTHWIND_US, page_size: 1000 },
      token,
    );
    const { total_number: total, total_page: pages } = first.data.page_info;
    expect(total).toBeGreaterThan(3000);
    expect(pages).toBe(Math.ceil(total / 1000));
    expect(pages).toBeGreaterThanOrEqual(4);

    const rows = [...first.data.list];
    for (let page = 2; page <= pages; page++) {
      const next = await h.get<Report>(
        '/report/integrated/get/',
        { ...AD_BY_DAY, advertiser_id: NORTHWIND_US, page_size: 1000, page },
        token,
      );
      expect(next.data.page_info).toEqual({ page, page_size: 1000, total_number: total, total_page: pages });
      rows.push(...next.data.list);
    }
    expect(rows).toHaveLength(total);
    expect(rows.length - 1000 * (pages - 1)).toBeGreaterThan(0);
    const keys = new Set(rows.map((row) => `${row.dimensions.ad_id}|${row.dimensions.stat_time_day}`));
    expect(keys.size).toBe(total);

    const beyond = await h.get<Report>(
      '/report/integrated/get/',
      { ...AD_BY_DAY, advertiser_id: NORTHWIND_US, page_size: 1000, page: pages + 1 },
      token,
    );
    expect(beyond.data.list).toEqual([]);
  });

  it('gives every sandbox advertiser more than 3000 ad-day rows over 30 days', async () => {
    for (const bc of SANDBOX_BUSINESS_CENTERS) {
      for (const advertiser of bc.advertisers) {
        const { data } = await h.get<Report>(
          '/report/integrated/get/',
          { ...AD_BY_DAY, advertiser_id: advertiser.advertiser_id, page_size: 1 },
          token,
        );
        expect(data.page_info.total_number).toBeGreaterThan(3000);
      }
    }
  });

  it('adds up: ads sum to campaigns, hours sum to the day', async () => {
    const day = { start_date: '2026-10-12', end_date: '2026-10-12', metrics: ['spend', 'impressions', 'clicks'] };
    const byAd = await h.get<Report>(
      '/report/integrated/get/',
      {
        ...day,
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_AD',
        dimensions: ['ad_id'],
        page_size: 1000,
      },
      token,
    );
    const byCampaign = await h.get<Report>(
      '/report/integrated/get/',
      {
        ...day,
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: ['campaign_id'],
        page_size: 1000,
      },
      token,
    );
    const byHour = await h.get<Report>(
      '/report/integrated/get/',
      {
        ...day,
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_ADVERTISER',
        dimensions: ['stat_time_hour'],
        page_size: 100,
      },
      token,
    );
    expect(byHour.data.list).toHaveLength(24);
    expect(byHour.data.list[0]?.dimensions.stat_time_hour).toBe('2026-10-12 00:00:00');
    expect(byHour.data.list[23]?.dimensions.stat_time_hour).toBe('2026-10-12 23:00:00');
    for (const metric of ['impressions', 'clicks']) {
      expect(sum(byCampaign.data.list, metric)).toBe(sum(byAd.data.list, metric));
      expect(sum(byHour.data.list, metric)).toBe(sum(byAd.data.list, metric));
    }
    expect(sum(byHour.data.list, 'spend')).toBeCloseTo(sum(byAd.data.list, 'spend'), 2);
  });

  it('orders by a metric when order_field is given', async () => {
    const { data } = await h.get<Report>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: ['campaign_id'],
        metrics: ['spend'],
        start_date: '2026-10-01',
        end_date: '2026-10-30',
        order_field: 'spend',
        order_type: 'DESC',
      },
      token,
    );
    const spends = data.list.map((row) => Number(row.metrics.spend));
    expect(spends).toEqual([...spends].sort((a, b) => b - a));
  });

  it('filters report rows by campaign ids', async () => {
    const campaigns = await h.get<{ list: { campaign_id: string }[] }>(
      '/campaign/get/',
      { advertiser_id: NORTHWIND_US, filtering: { primary_status: 'STATUS_DELIVERY_OK' }, page_size: 1 },
      token,
    );
    const campaignId = campaigns.data.list[0]?.campaign_id as string;
    const { data } = await h.get<Report>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: ['campaign_id', 'stat_time_day'],
        start_date: '2026-10-01',
        end_date: '2026-10-05',
        filtering: [{ field_name: 'campaign_ids', filter_type: 'IN', filter_value: JSON.stringify([campaignId]) }],
      },
      token,
    );
    expect(data.list.length).toBeGreaterThan(0);
    expect(data.list.every((row) => row.dimensions.campaign_id === campaignId)).toBe(true);
  });

  it('breaks an AUDIENCE report down by gender', async () => {
    const { code, data } = await h.get<Report>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'AUDIENCE',
        data_level: 'AUCTION_ADVERTISER',
        dimensions: ['gender'],
        start_date: '2026-10-01',
        end_date: '2026-10-07',
      },
      token,
    );
    expect(code).toBe(0);
    expect(data.list.map((row) => row.dimensions.gender).sort()).toEqual(['FEMALE', 'MALE', 'NONE']);
  });

  it('runs a BC report over the business center advertisers of the grant', async () => {
    const { code, data } = await h.get<Report>(
      '/report/integrated/get/',
      {
        report_type: 'BC',
        bc_id: NORTHWIND_BC,
        dimensions: ['advertiser_id'],
        start_date: '2026-10-01',
        end_date: '2026-10-07',
      },
      token,
    );
    expect(code).toBe(0);
    expect(data.list).toHaveLength(3);
  });

  it('answers an empty page for report types the sandbox accounts have no assets for', async () => {
    const { code, data } = await h.get<Report>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'PLAYABLE_MATERIAL',
        dimensions: ['playable_id'],
        start_date: '2026-10-01',
        end_date: '2026-10-07',
      },
      token,
    );
    expect(code).toBe(0);
    expect(data).toEqual({ list: [], page_info: { page: 1, page_size: 10, total_number: 0, total_page: 0 } });
  });
});
