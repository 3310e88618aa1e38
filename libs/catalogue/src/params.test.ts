import { encodeParams, findEndpoint, paramsInputSchema, queryStringOf, validateParams } from './index';

const report = findEndpoint('video-ads', '/v1.3/report/integrated/get/')!;

describe('catalogue parameters', () => {
  it('encodes arrays and objects as one JSON-string parameter and drops service-owned names', () => {
    expect(
      encodeParams(
        {
          dimensions: ['campaign_id', 'stat_time_day'],
          filtering: { campaign_ids: ['1'] },
          page_size: 1000,
          access_token: 'caller-token',
          app_id: 'x',
          secret: 'y',
        },
        findEndpoint('video-ads', '/v1.3/report/integrated/get/'),
      ),
    ).toEqual({
      dimensions: '["campaign_id","stat_time_day"]',
      filtering: '{"campaign_ids":["1"]}',
      page_size: '1000',
    });
  });

  it('accepts a complete BASIC report request', () => {
    const encoded = encodeParams({
      advertiser_id: '1',
      report_type: 'BASIC',
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: ['campaign_id', 'stat_time_day'],
      metrics: ['spend'],
      start_date: '2026-10-01',
      end_date: '2026-10-30',
      page_size: 1000,
    });
    expect(validateParams(report, encoded)).toEqual([]);
  });

  it('requires data_level only when report_type is BASIC (spec 4.2)', () => {
    const base = {
      advertiser_id: '1',
      dimensions: '["campaign_id"]',
      start_date: '2026-10-01',
      end_date: '2026-10-02',
    };
    expect(validateParams(report, { ...base, report_type: 'BASIC' })).toEqual(['data_level is required']);
    expect(validateParams(report, { ...base, report_type: 'AUDIENCE' })).toEqual([]);
  });

  it('reports every problem at once', () => {
    const problems = validateParams(report, {
      report_type: 'WEEKLY',
      dimensions: 'campaign_id',
      start_date: '01-10-2026',
      end_date: '2026-10-02',
      page_size: '5000',
      colour: 'red',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'colour is not a parameter of /v1.3/report/integrated/get/',
        'advertiser_id is required',
        'report_type must be one of BASIC, AUDIENCE, PLAYABLE_MATERIAL',
        expect.stringContaining('dimensions must be a JSON array of strings in one parameter'),
        'start_date must be a date YYYY-MM-DD',
        'page_size must be at most 1000',
      ]),
    );
  });

  it('rejects unknown dimension values and an end before the start', () => {
    const problems = validateParams(report, {
      advertiser_id: '1',
      report_type: 'AUDIENCE',
      dimensions: '["campaign_name"]',
      start_date: '2026-10-05',
      end_date: '2026-10-01',
    });
    expect(problems).toEqual(['dimensions does not allow campaign_name', 'end_date is before start_date']);
  });

  it('builds an input schema that takes arrays as values or JSON strings', () => {
    const schema = paramsInputSchema(report);
    const input = {
      advertiser_id: '1',
      report_type: 'BASIC',
      dimensions: ['campaign_id'],
      start_date: '2026-10-01',
      end_date: '2026-10-02',
    };
    expect(schema.safeParse(input).success).toBe(true);
    expect(schema.safeParse({ ...input, dimensions: '["campaign_id"]' }).success).toBe(true);
    expect(schema.safeParse({ ...input, report_type: 'NOPE' }).success).toBe(false);
    expect(schema.safeParse({ ...input, unknown: 1 }).success).toBe(false);
  });

  it('checks each platform date format, and only real days', () => {
    const ads = findEndpoint('marketplace-ads', '/api/v2/ads/get_all_cpc_ads_daily_performance')!;
    expect(validateParams(ads, { start_date: '01-11-2026', end_date: '24-11-2026' })).toEqual([]);
    expect(validateParams(ads, { start_date: '2026-11-01', end_date: '31-02-2026' })).toHaveLength(2);
    const affiliate = findEndpoint('marketplace-affiliate', '/api/v2/ams/get_shop_performance')!;
    expect(
      validateParams(affiliate, {
        period_type: 'Day',
        start_date: '20261101',
        end_date: '20261124',
        order_type: 'ConfirmedOrder',
        channel: 'AllChannel',
      }),
    ).toEqual([]);
    expect(
      validateParams(affiliate, {
        period_type: 'Day',
        start_date: '2026-11-01',
        end_date: '20261124',
        order_type: 'ConfirmedOrder',
        channel: 'AllChannel',
      }),
    ).toEqual(['start_date must be a date YYYYMMDD']);
  });

  it('joins csv lists with commas and counts their items', () => {
    const detail = findEndpoint('marketplace', '/api/v2/order/get_order_detail')!;
    expect(encodeParams({ order_sn_list: ['A1', 'B2'] }, detail)).toEqual({ order_sn_list: 'A1,B2' });
    expect(validateParams(detail, { order_sn_list: Array.from({ length: 51 }, (_, i) => `S${i}`).join(',') })).toEqual([
      'order_sn_list takes at most 50 item(s)',
    ]);
  });

  describe('a parameter the platform takes repeated (item_status)', () => {
    const items = findEndpoint('marketplace', '/api/v2/product/get_item_list')!;
    const base = { offset: '0', page_size: '10' };

    it('keeps one wire value per item, a single value as a list of one', () => {
      expect(encodeParams({ item_status: ['NORMAL', 'BANNED'] }, items)).toEqual({ item_status: ['NORMAL', 'BANNED'] });
      expect(encodeParams({ item_status: 'NORMAL' }, items)).toEqual({ item_status: ['NORMAL'] });
      expect(paramsInputSchema(items).safeParse({ ...base, item_status: ['NORMAL', 'UNLIST'] }).success).toBe(true);
    });

    it('writes the parameter once per value in the query string, escaped, in the order given', () => {
      const encoded = encodeParams({ offset: 0, page_size: 10, item_status: ['NORMAL', 'UNLIST'] }, items);
      expect(queryStringOf(encoded)).toBe('offset=0&page_size=10&item_status=NORMAL&item_status=UNLIST');
      expect(queryStringOf({ 'a b': ['x&y', 'z=1'], c: 'd,e' })).toBe('a%20b=x%26y&a%20b=z%3D1&c=d%2Ce');
      expect(queryStringOf({})).toBe('');
    });

    it('accepts known values and refuses a comma-joined one, which the platform reads as one unknown status', () => {
      expect(validateParams(items, { ...base, item_status: ['NORMAL', 'BANNED'] })).toEqual([]);
      expect(validateParams(items, { ...base, item_status: 'NORMAL' })).toEqual([]);
      const joined = validateParams(items, { ...base, ...encodeParams({ item_status: 'NORMAL,BANNED' }, items) });
      expect(joined).toHaveLength(1);
      expect(joined[0]).toMatch(
        /^item_status does not allow NORMAL,BANNED: give one of NORMAL, BANNED, .* several as a list$/,
      );
    });

    it('requires at least one value, none empty', () => {
      expect(validateParams(items, { ...base, item_status: [] })).toEqual(['item_status is required']);
      expect(validateParams(items, base)).toEqual(['item_status is required']);
      expect(validateParams(items, { ...base, item_status: ['NORMAL', ''] })).toEqual([
        'item_status must not have an empty value',
      ]);
    });

    it('refuses a list for a parameter that takes one value', () => {
      expect(validateParams(items, { ...base, offset: ['0', '10'], item_status: ['NORMAL'] })).toEqual([
        'offset takes one value',
      ]);
    });
  });
});
