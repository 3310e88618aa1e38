import { encodeParams, findEndpoint, validateBody, validateParams, type ProviderId } from '@gateway/catalogue';
import { Bm25Ranker } from './bm25.ranker';
import { EndpointIndex } from './endpoint.index';
import { suggestByKeywords } from './keyword.suggester';
import { extractReportTerms } from './report-terms.extractor';
import { stem, tokenize } from './text-tokens';

const TODAY = new Date('2026-11-22T10:00:00Z');
const index = new EndpointIndex();
const REPORT = '/v1.3/report/integrated/get/';

/** The best video-ads endpoint: these questions are about its vocabulary (a key's providers narrow the search). */
function best(question: string): string | undefined {
  return index.search(question, ['video-ads'])[0]?.item.path;
}

describe('tokenizing and stemming', () => {
  it('lowercases, splits snake_case, drops stop words and stems plurals and verb forms', () => {
    expect(tokenize('Show me the Campaigns by stat_time_day')).toEqual(['campaign', 'stat', 'time', 'day']);
    expect(tokenize('How many clicks and impressions did ads get?')).toEqual(['many', 'click', 'impression', 'ad']);
    expect(tokenize('spent on ad groups')).toEqual(['spend', 'adgroup']);
    expect(['business', 'status', 'countries', 'matches'].map(stem)).toEqual([
      'business',
      'status',
      'country',
      'match',
    ]);
  });
});

describe('BM25 ranking', () => {
  it('weighs rare terms above common ones and saturates repeated ones', () => {
    const ranker = new Bm25Ranker(
      [
        { id: 'a', text: 'campaign campaign campaign campaign list' },
        { id: 'b', text: 'campaign spend report' },
        { id: 'c', text: 'store list' },
      ],
      (doc) => [{ text: doc.text, weight: 1 }],
    );
    expect(ranker.rank('campaign spend').map((entry) => entry.item.id)).toEqual(['b', 'a']);
    expect(ranker.rank('nothing matches this')).toEqual([]);
  });

  it.each([
    ['How much did we spend per campaign last week?', REPORT],
    ['daily clicks and impressions by ad', REPORT],
    ['what is the CTR and CPC of my ad groups', REPORT],
    ['conversions yesterday', REPORT],
    ['which advertiser accounts can I see', '/v1.3/oauth2/advertiser/get/'],
    ['which ad accounts can I access?', '/v1.3/oauth2/advertiser/get/'],
    ['currency and time zone of the advertiser', '/v1.3/advertiser/info/'],
    ['list campaign names', '/v1.3/campaign/get/'],
    ['ad group targeting and bids', '/v1.3/adgroup/get/'],
    ['landing page of each creative', '/v1.3/ad/get/'],
    ['GMV max stores', '/v1.3/gmv_max/store/list/'],
    ['gross revenue and ROI of our shop', '/v1.3/gmv_max/report/get/'],
  ])('ranks "%s" first to %s', (question, path) => {
    expect(best(question)).toBe(path);
  });
});

describe('report terms', () => {
  it('finds the finest grouping, the time grain and the metrics', () => {
    expect(extractReportTerms('spend and CTR of ads in each campaign, day by day')).toMatchObject({
      level: 'ad',
      time: 'day',
      metrics: ['spend', 'ctr'],
    });
    expect(extractReportTerms('hourly cost per click by ad group')).toMatchObject({
      level: 'adgroup',
      time: 'hour',
      metrics: ['cpc'],
    });
    expect(extractReportTerms('impressions, clicks, conversions and CPM per campaign')).toMatchObject({
      level: 'campaign',
      metrics: ['impressions', 'clicks', 'cpm', 'conversion'],
    });
    expect(extractReportTerms('total spend for advertiser 7012345678901234567').ids).toEqual(['7012345678901234567']);
  });

  it('does not take "ad group" or "ad spend" for ad-level rows', () => {
    expect(extractReportTerms('spend by ad group').level).toBe('adgroup');
    expect(extractReportTerms('total ad spend').level).toBeUndefined();
  });
});

describe('keyword suggestions', () => {
  it('proposes the report with dimensions, metrics and a date range that pass the catalogue', () => {
    const { suggestion } = suggestByKeywords(
      index,
      'How much did we spend and how many clicks per campaign, daily, last 7 days?',
      TODAY,
    );
    expect(suggestion?.endpoint.path).toBe(REPORT);
    expect(suggestion?.params).toEqual({
      report_type: 'BASIC',
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: ['campaign_id', 'stat_time_day'],
      metrics: ['spend', 'clicks'],
      start_date: '2026-11-15',
      end_date: '2026-11-21',
      page_size: 500,
    });
    expect(suggestion?.missing.map((param) => param.name)).toEqual(['advertiser_id']);
    const filled = encodeParams({ ...suggestion!.params, advertiser_id: '7012345678901234567' });
    expect(validateParams(findEndpoint('video-ads', REPORT)!, filled)).toEqual([]);
  });

  it('keeps the platform limits: one day for hours, 30 days by day', () => {
    const hourly = suggestByKeywords(index, 'hourly impressions last 7 days', TODAY).suggestion!;
    expect(hourly.params.dimensions).toEqual(['advertiser_id', 'stat_time_day']);
    expect(hourly.notes.join(' ')).toMatch(/stat_time_hour allows one day/);
    const long = suggestByKeywords(index, 'daily spend over the last 90 days', TODAY, ['video-ads']).suggestion!;
    expect([long.params.start_date, long.params.end_date]).toEqual(['2026-10-23', '2026-11-21']);
    const yesterday = suggestByKeywords(index, 'spend by hour yesterday', TODAY).suggestion!;
    expect(yesterday.params.dimensions).toEqual(['advertiser_id', 'stat_time_hour']);
  });

  it('takes an advertiser id from the question and assumes the last 7 days when no period is named', () => {
    const { suggestion } = suggestByKeywords(index, 'spend report for advertiser 7012345678901234567', TODAY);
    expect(suggestion?.params.advertiser_id).toBe('7012345678901234567');
    expect(suggestion?.missing).toEqual([]);
    expect([suggestion?.params.start_date, suggestion?.params.end_date]).toEqual(['2026-11-15', '2026-11-21']);
  });

  it('falls back to the advertiser listing when nothing matches, and respects a provider filter', () => {
    expect(suggestByKeywords(index, 'zzz qqq', TODAY).suggestion?.endpoint.path).toBe('/v1.3/oauth2/advertiser/get/');
    const filtered = suggestByKeywords(index, 'campaign spend', TODAY, ['search-ads']);
    expect(filtered.ranked.every((entry) => entry.endpoint.provider === 'search-ads')).toBe(true);
    expect(filtered.suggestion?.endpoint.provider).toBe('search-ads');
  });
});

describe('keyword suggestions for video-shop', () => {
  // TODAY is Sunday 2026-11-22: last week is Monday 2026-11-09 to Sunday 2026-11-15.
  const LAST_WEEK = { ge: Date.UTC(2026, 10, 9) / 1000, lt: Date.UTC(2026, 10, 16) / 1000 };
  const SHOP_ONLY: ProviderId[] = ['video-shop'];
  const BOTH: ProviderId[] = ['video-ads', 'video-shop'];
  const KEYS: [string, ProviderId[]][] = [
    ['video-shop only', SHOP_ONLY],
    ['video-ads and video-shop', BOTH],
  ];

  function valid(suggestion: ReturnType<typeof suggestByKeywords>['suggestion']): void {
    const endpoint = suggestion!.endpoint;
    expect(validateParams(endpoint, encodeParams(suggestion!.params, endpoint))).toEqual([]);
    if (endpoint.body) expect(validateBody(endpoint, suggestion!.body ?? {})).toEqual([]);
    else expect(suggestion!.body).toBeUndefined();
    expect(suggestion!.missing).toEqual([]);
  }

  it.each(KEYS)('"orders last week" gives the orders search with a unix-second body (key: %s)', (_key, p) => {
    const { suggestion } = suggestByKeywords(index, 'orders last week', TODAY, p);
    expect(suggestion?.endpoint.path).toBe('/order/202309/orders/search');
    expect(suggestion?.params).toMatchObject({ page_size: 50 });
    expect(suggestion?.body).toEqual({ create_time_ge: LAST_WEEK.ge, create_time_lt: LAST_WEEK.lt });
    valid(suggestion);
  });

  it.each(KEYS)('"products with low stock" gives a products search of active products (key: %s)', (_key, p) => {
    const { suggestion } = suggestByKeywords(index, 'products with low stock', TODAY, p);
    expect(suggestion?.endpoint.path).toMatch(/^\/product\/20(2309|2502)\/products\/search$/);
    expect(suggestion?.body).toEqual({ status: 'ACTIVATE' });
    expect(suggestion?.notes.join(' ')).toMatch(/inventory/);
    valid(suggestion);
  });

  it.each(KEYS)('"shop performance last 30 days" gives the performance days (key: %s)', (_key, p) => {
    const { suggestion } = suggestByKeywords(index, 'shop performance last 30 days', TODAY, p);
    expect(suggestion?.endpoint.path).toBe('/analytics/202405/shop/performance');
    expect(suggestion?.params).toEqual({ start_date_ge: '2026-10-23', end_date_lt: '2026-11-22' });
    valid(suggestion);
  });

  it.each(KEYS)('"finance statements" gives the statements sorted by statement_time (key: %s)', (_key, p) => {
    const { suggestion } = suggestByKeywords(index, 'finance statements', TODAY, p);
    expect(suggestion?.endpoint.path).toBe('/finance/202309/statements');
    expect(suggestion?.params).toMatchObject({ sort_field: 'statement_time' });
    valid(suggestion);
  });

  it('reads an order status into the body', () => {
    const { suggestion } = suggestByKeywords(index, 'orders awaiting shipment yesterday', TODAY, SHOP_ONLY);
    expect(suggestion?.body).toEqual({
      create_time_ge: Date.UTC(2026, 10, 21) / 1000,
      create_time_lt: Date.UTC(2026, 10, 22) / 1000,
      order_status: 'AWAITING_SHIPMENT',
    });
    valid(suggestion);
  });

  it('falls back to each provider’s starting endpoint when nothing matches', () => {
    expect(suggestByKeywords(index, 'zzz qqq', TODAY, SHOP_ONLY).suggestion?.endpoint.path).toBe(
      '/authorization/202309/shops',
    );
    expect(suggestByKeywords(index, 'zzz qqq', TODAY, BOTH).suggestion?.endpoint.path).toBe(
      '/v1.3/oauth2/advertiser/get/',
    );
  });

  it('keeps the advertising questions on video-ads when the key has both providers', () => {
    expect(suggestByKeywords(index, 'spend per campaign last week', TODAY, BOTH).suggestion?.endpoint.path).toBe(
      REPORT,
    );
  });
});
