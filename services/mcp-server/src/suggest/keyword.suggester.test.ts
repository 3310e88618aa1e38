import { encodeParams, findEndpoint, validateParams } from '@gateway/catalogue';
import { Bm25Ranker } from './bm25.ranker';
import { EndpointIndex } from './endpoint.index';
import { suggestByKeywords } from './keyword.suggester';
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
