import { NORTHWIND_US, rawRequest, startSandbox, type Envelope, type Harness } from '../testing/sandbox.harness';

const REPORT = {
  advertiser_id: NORTHWIND_US,
  report_type: 'BASIC',
  data_level: 'AUCTION_AD',
  dimensions: ['ad_id', 'stat_time_day'],
  start_date: '2026-10-01',
  end_date: '2026-10-30',
};

describe('video-ads parameter errors (40002)', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSandbox();
    token = await h.grant({ advertiser_ids: [NORTHWIND_US] });
  });
  afterAll(() => h.close());

  /** A GET with a hand-written query string, to send what a helper would never build. */
  async function rawGet(path: string, query: string): Promise<{ status: number; body: Envelope }> {
    const response = await fetch(`${h.url}/open_api/v1.3${path}?${query}`, { headers: { 'Access-Token': token } });
    return { status: response.status, body: (await response.json()) as Envelope };
  }

  function expectParamError(body: Envelope, message: string | RegExp): void {
    expect(body.code).toBe(40002);
    expect(body.data).toEqual({});
    if (typeof message === 'string') expect(body.message).toBe(message);
    else expect(body.message).toMatch(message);
  }

  it.each([
    ['advertiser_id', '/campaign/get/', {}],
    ['report_type', '/report/integrated/get/', { ...REPORT, report_type: undefined }],
    ['data_level', '/report/integrated/get/', { ...REPORT, data_level: undefined }],
    ['dimensions', '/report/integrated/get/', { ...REPORT, dimensions: undefined }],
    ['start_date', '/report/integrated/get/', { ...REPORT, start_date: undefined }],
    ['advertiser_ids', '/advertiser/info/', {}],
    ['store_ids', '/gmv_max/report/get/', { advertiser_id: NORTHWIND_US }],
  ])('refuses a missing required %s', async (name, path, params) => {
    const body = await h.get(path, params, token);
    expectParamError(body, `${name}: Missing data for required field.`);
  });

  it('refuses a missing metrics on the GMV Max report', async () => {
    const body = await h.get(
      '/gmv_max/report/get/',
      {
        advertiser_id: NORTHWIND_US,
        store_ids: ['1'],
        start_date: '2026-10-01',
        end_date: '2026-10-02',
        dimensions: ['stat_time_day'],
      },
      token,
    );
    expectParamError(body, 'metrics: Missing data for required field.');
  });

  it.each([
    ['report_type', { ...REPORT, report_type: 'WEEKLY' }],
    ['data_level', { ...REPORT, data_level: 'AUCTION_KEYWORD' }],
    ['order_type', { ...REPORT, order_type: 'UP' }],
  ])('refuses a wrong enum value of %s', async (name, params) => {
    const body = await h.get('/report/integrated/get/', params, token);
    expectParamError(body, new RegExp(`^${name}: Must be one of: `));
  });

  it('refuses a wrong primary_status in filtering', async () => {
    const body = await h.get('/ad/get/', { advertiser_id: NORTHWIND_US, filtering: { primary_status: 'LIVE' } }, token);
    expectParamError(body, /^filtering\.primary_status: Must be one of: STATUS_ALL, /);
  });

  it('refuses an unknown filtering key and an unknown field', async () => {
    expectParamError(
      await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, filtering: { colour: 'red' } }, token),
      'filtering.colour: Unknown field.',
    );
    expectParamError(
      await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, fields: ['campaign_id', 'colour'] }, token),
      'fields: Invalid field(s): colour.',
    );
  });

  it.each([
    ['dimensions', 'dimensions=[ad_id,stat_time_day]'],
    ['dimensions', 'dimensions=ad_id'],
    ['filtering', 'filtering={campaign_ids:[1]}'],
  ])('refuses a malformed JSON string in %s', async (name, bad) => {
    const query = `advertiser_id=${NORTHWIND_US}&report_type=BASIC&data_level=AUCTION_AD&start_date=2026-10-01&end_date=2026-10-02&${bad}`;
    const path = name === 'filtering' ? '/campaign/get/' : '/report/integrated/get/';
    const { status, body } = await rawGet(path, name === 'filtering' ? `advertiser_id=${NORTHWIND_US}&${bad}` : query);
    expect(status).toBe(200);
    expectParamError(body, `${name}: Not a valid JSON string. Pass it as ONE parameter holding JSON.`);
  });

  it('refuses an object where a list is expected, and a list where an object is expected', async () => {
    expectParamError(
      await h.get('/report/integrated/get/', { ...REPORT, dimensions: { a: 1 } }, token),
      'dimensions: Not a valid list.',
    );
    expectParamError(
      await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, filtering: ['x'] }, token),
      'filtering: Not a valid mapping type.',
    );
  });

  it('refuses a parameter repeated once per element', async () => {
    const query =
      `advertiser_id=${NORTHWIND_US}&report_type=BASIC&data_level=AUCTION_AD&start_date=2026-10-01&end_date=2026-10-02` +
      '&dimensions=ad_id&dimensions=stat_time_day';
    const { status, body } = await rawGet('/report/integrated/get/', query);
    expect(status).toBe(200);
    expectParamError(body, /^dimensions: Parameter is repeated in the query string\./);
  });

  it.each([
    ['page_size', '1001', 'page_size: Must be greater than or equal to 1 and less than or equal to 1000.'],
    ['page_size', '0', 'page_size: Must be greater than or equal to 1 and less than or equal to 1000.'],
    ['page', '0', 'page: Must be greater than or equal to 1.'],
    ['page', 'two', 'page: Not a valid integer.'],
  ])('refuses %s=%s', async (name, value, message) => {
    const body = await h.get('/ad/get/', { advertiser_id: NORTHWIND_US, [name]: value }, token);
    expectParamError(body, message);
  });

  it.each([
    [['ad_id', 'stat_time_day'], '2026-10-01', '2026-10-31', 'max time span is 30 days when use stat_time_day'],
    [['ad_id', 'stat_time_hour'], '2026-10-01', '2026-10-02', 'max time span is 1 day when use stat_time_hour'],
    [['ad_id'], '2025-10-01', '2026-10-01', 'max time span is 365 days'],
  ])('refuses a %j report from %s to %s', async (dimensions, start, end, message) => {
    const body = await h.get(
      '/report/integrated/get/',
      { ...REPORT, dimensions, start_date: start, end_date: end },
      token,
    );
    expectParamError(body, message);
  });

  it('accepts exactly 30 days with stat_time_day and one day with stat_time_hour', async () => {
    expect((await h.get('/report/integrated/get/', REPORT, token)).code).toBe(0);
    const hourly = { ...REPORT, dimensions: ['ad_id', 'stat_time_hour'], end_date: '2026-10-01' };
    expect((await h.get('/report/integrated/get/', hourly, token)).code).toBe(0);
  });

  it.each(['2026/10/01', '2026-02-30', '20261001', '2026-1-1'])('refuses the date %s', async (date) => {
    const body = await h.get('/report/integrated/get/', { ...REPORT, start_date: date }, token);
    expectParamError(body, 'start_date: Not a valid date, the format is YYYY-MM-DD.');
  });

  it('refuses an end_date before the start_date', async () => {
    const body = await h.get(
      '/report/integrated/get/',
      { ...REPORT, start_date: '2026-10-10', end_date: '2026-10-09' },
      token,
    );
    expectParamError(body, 'end_date: Must be later than or equal to start_date.');
  });

  it('refuses more than 100 advertiser_ids', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => String(7000000000000000000 + i));
    const body = await h.get('/advertiser/info/', { advertiser_ids: ids }, token);
    expectParamError(body, 'advertiser_ids: Length must be less than or equal to 100.');
  });

  it('refuses unknown metrics and dimensions that do not fit the data level', async () => {
    expectParamError(
      await h.get('/report/integrated/get/', { ...REPORT, metrics: ['spend', 'campaign_name', 'vibes'] }, token),
      'metrics: Invalid metric(s): campaign_name, vibes.',
    );
    expectParamError(
      await h.get('/report/integrated/get/', { ...REPORT, data_level: 'AUCTION_CAMPAIGN' }, token),
      /^dimensions: Invalid dimension\(s\) for report_type BASIC and data_level AUCTION_CAMPAIGN: ad_id\./,
    );
    expectParamError(
      await h.get('/report/integrated/get/', { ...REPORT, dimensions: ['stat_time_day', 'stat_time_hour'] }, token),
      'dimensions: stat_time_day and stat_time_hour cannot be used together.',
    );
  });

  it('refuses GMV Max reports with two stores, four dimensions or product and live dimensions together', async () => {
    const base = {
      advertiser_id: NORTHWIND_US,
      store_ids: ['1'],
      metrics: ['cost'],
      dimensions: ['campaign_id'],
      start_date: '2026-10-01',
      end_date: '2026-10-02',
    };
    expectParamError(
      await h.get('/gmv_max/report/get/', { ...base, store_ids: ['1', '2'] }, token),
      'store_ids: Length must be less than or equal to 1.',
    );
    expectParamError(
      await h.get(
        '/gmv_max/report/get/',
        { ...base, dimensions: ['advertiser_id', 'campaign_id', 'stat_time_day', 'item_id'] },
        token,
      ),
      'dimensions: Length must be less than or equal to 3.',
    );
    expectParamError(
      await h.get('/gmv_max/report/get/', { ...base, dimensions: ['item_id', 'room_id'] }, token),
      /^dimensions: item_group_id\/item_id \(PRODUCT\) cannot be combined/,
    );
    expectParamError(
      await h.get('/gmv_max/report/get/', { ...base, metrics: ['spend'] }, token),
      'metrics: Invalid metric(s): spend.',
    );
    expectParamError(
      await h.get('/gmv_max/report/get/', { ...base, store_ids: ['1'] }, token),
      `store_ids: Store 1 is not a store of advertiser ${NORTHWIND_US}.`,
    );
  });

  it('refuses a parameter given both in the query and in the JSON body, and a malformed body', async () => {
    const both = await rawRequest(`${h.url}/open_api/v1.3/campaign/get/?advertiser_id=${NORTHWIND_US}`, {
      method: 'GET',
      headers: { 'Access-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ advertiser_id: NORTHWIND_US }),
    });
    expectParamError(
      JSON.parse(both.body) as Envelope,
      'advertiser_id: Parameter is given both in the query string and in the body.',
    );
    const broken = await rawRequest(`${h.url}/open_api/v1.3/campaign/get/`, {
      method: 'GET',
      headers: { 'Access-Token': token, 'Content-Type': 'application/json' },
      body: '{"advertiser_id": ',
    });
    expectParamError(JSON.parse(broken.body) as Envelope, 'Request body is not valid JSON.');
  });
});
