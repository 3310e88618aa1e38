import {
  NORTHWIND_BC,
  NORTHWIND_UK,
  NORTHWIND_US,
  rawRequest,
  startSandbox,
  type Harness,
  type PageInfo,
  type ReportRow,
} from '../testing/sandbox.harness';

type List<T = Record<string, unknown>> = { list: T[]; page_info: PageInfo };

describe('video-ads read endpoints', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSandbox();
    token = await h.grant({ bc_ids: [NORTHWIND_BC] });
  });
  afterAll(() => h.close());

  it('answers in the platform envelope with a 31-digit request_id and a JSON content type', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/advertiser/info/?advertiser_ids=["${NORTHWIND_US}"]`, {
      headers: { 'Access-Token': token },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['code', 'message', 'request_id', 'data']);
    expect(body.code).toBe(0);
    expect(body.message).toBe('OK');
    expect(body.request_id).toMatch(/^20\d{29}$/);
  });

  it('lists the advertisers of the token on /oauth2/advertiser/get/ without page_info', async () => {
    const { code, data } = await h.get<{ list: unknown[] }>(
      '/oauth2/advertiser/get/',
      { app_id: h.config.SANDBOX_APP_ID, secret: h.config.SANDBOX_APP_SECRET },
      token,
    );
    expect(code).toBe(0);
    expect(data.list).toHaveLength(3);
    expect(data.list[0]).toEqual({ advertiser_id: NORTHWIND_US, advertiser_name: 'Northwind US' });
    expect(data).not.toHaveProperty('page_info');
  });

  it('describes advertisers on /advertiser/info/ with currency, time zone, status and a numeric balance', async () => {
    const { code, data } = await h.get<{ list: Record<string, unknown>[] }>(
      '/advertiser/info/',
      { advertiser_ids: [NORTHWIND_US, NORTHWIND_UK] },
      token,
    );
    expect(code).toBe(0);
    expect(data.list.map((a) => a.advertiser_id)).toEqual([NORTHWIND_US, NORTHWIND_UK]);
    const uk = data.list[1] as Record<string, unknown>;
    expect(uk).toMatchObject({
      name: 'Northwind UK',
      status: 'STATUS_ENABLE',
      currency: 'GBP',
      timezone: 'Europe/London',
      display_timezone: 'Europe/London',
      country: 'GB',
      owner_bc_id: NORTHWIND_BC,
      role: 'ROLE_ADVERTISER',
    });
    expect(typeof uk.balance).toBe('number');
    expect(Number.isInteger(uk.create_time)).toBe(true);
  });

  it('returns only the asked fields on /advertiser/info/', async () => {
    const { data } = await h.get<{ list: object[] }>(
      '/advertiser/info/',
      { advertiser_ids: [NORTHWIND_US], fields: ['name', 'currency'] },
      token,
    );
    expect(data.list).toEqual([{ name: 'Northwind US', currency: 'USD' }]);
  });

  it.each(['campaign', 'adgroup', 'ad'])('pages the %s list with page_info', async (entity) => {
    const first = await h.get<List>(`/${entity}/get/`, { advertiser_id: NORTHWIND_US, page_size: 5 }, token);
    expect(first.code).toBe(0);
    expect(first.data.list).toHaveLength(5);
    const info = first.data.page_info;
    expect(info).toMatchObject({ page: 1, page_size: 5 });
    expect(info.total_page).toBe(Math.ceil(info.total_number / 5));
    const last = await h.get<List>(
      `/${entity}/get/`,
      { advertiser_id: NORTHWIND_US, page_size: 5, page: info.total_page },
      token,
    );
    expect(last.data.list.length).toBe(info.total_number - 5 * (info.total_page - 1));
    for (const record of first.data.list) {
      expect(record[`${entity}_id`]).toMatch(/^\d{19}$/);
      expect(record.create_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(['ENABLE', 'DISABLE']).toContain(record.operation_status);
    }
  });

  it('has 150 to 300 ads per advertiser and a page size default of 10', async () => {
    const { data } = await h.get<List>(
      '/ad/get/',
      { advertiser_id: NORTHWIND_US, filtering: { primary_status: 'STATUS_ALL' } },
      token,
    );
    expect(data.list).toHaveLength(10);
    expect(data.page_info.total_number).toBeGreaterThanOrEqual(150);
    expect(data.page_info.total_number).toBeLessThanOrEqual(300);
  });

  it('filters ad groups by campaign ids and ads by ad ids, and projects fields', async () => {
    const campaigns = await h.get<List>('/campaign/get/', { advertiser_id: NORTHWIND_US, page_size: 2 }, token);
    const campaignId = campaigns.data.list[0]?.campaign_id as string;
    const adgroups = await h.get<List>(
      '/adgroup/get/',
      { advertiser_id: NORTHWIND_US, filtering: { campaign_ids: [campaignId], primary_status: 'STATUS_ALL' } },
      token,
    );
    expect(adgroups.data.list.length).toBeGreaterThan(0);
    expect(adgroups.data.list.every((g) => g.campaign_id === campaignId)).toBe(true);

    const ads = await h.get<List>('/ad/get/', { advertiser_id: NORTHWIND_US, page_size: 3 }, token);
    const ids = ads.data.list.map((ad) => ad.ad_id as string).slice(0, 2);
    const picked = await h.get<List>(
      '/ad/get/',
      { advertiser_id: NORTHWIND_US, fields: ['ad_id', 'ad_name'], filtering: { ad_ids: ids } },
      token,
    );
    expect(picked.data.list.map((ad) => ad.ad_id).sort()).toEqual([...ids].sort());
    expect(Object.keys(picked.data.list[0] ?? {})).toEqual(['ad_id', 'ad_name']);
  });

  it('filters by primary_status and hides deleted records by default', async () => {
    const all = await h.get<List>(
      '/ad/get/',
      { advertiser_id: NORTHWIND_US, page_size: 1000, filtering: { primary_status: 'STATUS_ALL' } },
      token,
    );
    const byDefault = await h.get<List>('/ad/get/', { advertiser_id: NORTHWIND_US, page_size: 1000 }, token);
    const deleted = await h.get<List>(
      '/ad/get/',
      { advertiser_id: NORTHWIND_US, page_size: 1000, filtering: { primary_status: 'STATUS_DELETE' } },
      token,
    );
    const delivering = await h.get<List>(
      '/ad/get/',
      { advertiser_id: NORTHWIND_US, page_size: 1000, filtering: { primary_status: 'STATUS_DELIVERY_OK' } },
      token,
    );
    expect(byDefault.data.page_info.total_number + deleted.data.page_info.total_number).toBe(
      all.data.page_info.total_number,
    );
    expect(delivering.data.list.every((ad) => ad.secondary_status === 'AD_STATUS_DELIVERY_OK')).toBe(true);
  });

  it('runs a BASIC report with string metrics and ids only', async () => {
    const { code, data } = await h.get<List<ReportRow>>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: ['campaign_id', 'stat_time_day'],
        metrics: ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversion', 'cost_per_conversion'],
        start_date: '2026-10-01',
        end_date: '2026-10-07',
        page_size: 1000,
      },
      token,
    );
    expect(code).toBe(0);
    expect(data.list.length).toBeGreaterThan(7);
    for (const row of data.list) {
      expect(Object.keys(row.dimensions)).toEqual(['campaign_id', 'stat_time_day']);
      expect(row.dimensions.stat_time_day).toMatch(/^2026-10-0[1-7] 00:00:00$/);
      for (const value of Object.values(row.metrics)) expect(typeof value).toBe('string');
      expect(row.metrics.spend).toMatch(/^\d+\.\d{2}$/);
      expect(row.metrics.impressions).toMatch(/^\d+$/);
    }
  });

  it('uses spend and impressions when metrics are not given', async () => {
    const { data } = await h.get<List<ReportRow>>(
      '/report/integrated/get/',
      {
        advertiser_id: NORTHWIND_US,
        report_type: 'BASIC',
        data_level: 'AUCTION_ADVERTISER',
        dimensions: ['advertiser_id'],
        start_date: '2026-09-01',
        end_date: '2026-10-31',
      },
      token,
    );
    expect(data.list).toHaveLength(1);
    expect(Object.keys(data.list[0]?.metrics ?? {})).toEqual(['spend', 'impressions']);
    expect(data.list[0]?.dimensions).toEqual({ advertiser_id: NORTHWIND_US });
  });

  it('lists GMV Max stores without page_info and reports on the first store', async () => {
    const stores = await h.get<{ store_list: Record<string, unknown>[] }>(
      '/gmv_max/store/list/',
      { advertiser_id: NORTHWIND_US },
      token,
    );
    expect(stores.code).toBe(0);
    expect(stores.data).not.toHaveProperty('page_info');
    const store = stores.data.store_list[0] as Record<string, unknown>;
    expect(store).toMatchObject({ store_status: 'ACTIVE', is_gmv_max_available: true });
    expect(store.store_id).toMatch(/^\d{19}$/);
    expect(typeof store.store_name).toBe('string');
    expect(typeof store.store_code).toBe('string');
    expect(typeof store.store_role).toBe('string');

    const report = await h.get<List<ReportRow>>(
      '/gmv_max/report/get/',
      {
        advertiser_id: NORTHWIND_US,
        store_ids: [store.store_id],
        metrics: ['cost', 'orders', 'gross_revenue', 'roi'],
        dimensions: ['campaign_id', 'stat_time_day'],
        start_date: '2026-10-01',
        end_date: '2026-10-05',
      },
      token,
    );
    expect(report.code).toBe(0);
    expect(report.data.page_info.total_number).toBeGreaterThanOrEqual(5);
    expect(report.data.list[0]?.metrics.roi).toMatch(/^\d+\.\d{2}$/);
  });

  it('reports GMV Max by product item', async () => {
    const stores = await h.get<{ store_list: { store_id: string }[] }>(
      '/gmv_max/store/list/',
      { advertiser_id: NORTHWIND_US },
      token,
    );
    const report = await h.get<List<ReportRow>>(
      '/gmv_max/report/get/',
      {
        advertiser_id: NORTHWIND_US,
        store_ids: [stores.data.store_list[0]?.store_id],
        metrics: ['orders', 'product_impressions'],
        dimensions: ['item_group_id', 'item_id'],
        start_date: '2026-10-01',
        end_date: '2026-10-05',
        page_size: 100,
      },
      token,
    );
    expect(report.code).toBe(0);
    expect(report.data.list.length).toBeGreaterThan(3);
    expect(report.data.list.every((row) => /^\d{19}$/.test(row.dimensions.item_id ?? ''))).toBe(true);
  });

  it('accepts parameters in a JSON body on GET, merged with the query', async () => {
    const response = await rawRequest(`${h.url}/open_api/v1.3/campaign/get/?page_size=3`, {
      method: 'GET',
      headers: { 'Access-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ advertiser_id: NORTHWIND_US, filtering: { primary_status: 'STATUS_ALL' }, page: 2 }),
    });
    const body = JSON.parse(response.body) as { code: number; data: List };
    expect(body.code).toBe(0);
    expect(body.data.page_info).toMatchObject({ page: 2, page_size: 3 });
  });

  it('answers the same data for the same query, also from a fresh sandbox', async () => {
    const params = {
      advertiser_id: NORTHWIND_UK,
      report_type: 'BASIC',
      data_level: 'AUCTION_AD',
      dimensions: ['ad_id', 'stat_time_day'],
      metrics: ['spend', 'clicks', 'ctr'],
      start_date: '2026-09-01',
      end_date: '2026-09-03',
      page_size: 50,
    };
    const first = await h.get('/report/integrated/get/', params, token);
    const again = await h.get('/report/integrated/get/', params, token);
    const other = await startSandbox();
    try {
      const otherToken = await other.grant({ advertiser_ids: [NORTHWIND_UK] });
      const fresh = await other.get('/report/integrated/get/', params, otherToken);
      const campaigns = await other.get('/campaign/get/', { advertiser_id: NORTHWIND_UK }, otherToken);
      expect(fresh.data).toEqual(first.data);
      expect(campaigns.data).toEqual((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_UK }, token)).data);
    } finally {
      await other.close();
    }
    expect(again.data).toEqual(first.data);
    expect(again.request_id).not.toBe(first.request_id);
  });
});
