import { PROVIDER_IDS, encodeParams, validateBody, validateParams, type ProviderId } from '@gateway/catalogue';
import { EndpointIndex } from '../../endpoint.index';
import { suggestByKeywords } from '../../keyword.suggester';
import { asksForSearchAds } from './search-ads-intent.extractor';

// Sunday 2026-11-22: last week is Monday 2026-11-09 to Sunday 2026-11-15; the last 7 days 2026-11-15 to 2026-11-21.
const TODAY = new Date('2026-11-22T10:00:00Z');
const index = new EndpointIndex();
const SEARCH: ProviderId[] = ['search-ads'];
const BOTH: ProviderId[] = ['video-ads', 'search-ads'];
const ALL: ProviderId[] = [...PROVIDER_IDS];

const REPORT = '/api/v5/reports/campaigns';
const KEYWORDS = '/api/v5/campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords';

function suggest(question: string, providers: ProviderId[] = SEARCH) {
  return suggestByKeywords(index, question, TODAY, providers).suggestion!;
}

/** The suggestion passes the catalogue as call_endpoint will send it. */
function expectValid(suggestion: ReturnType<typeof suggest>): void {
  expect(validateParams(suggestion.endpoint, encodeParams(suggestion.params, suggestion.endpoint))).toEqual([]);
  if (suggestion.endpoint.body) {
    expect(suggestion.body).toBeDefined();
    expect(validateBody(suggestion.endpoint, suggestion.body!)).toEqual([]);
  } else {
    expect(suggestion.body).toBeUndefined();
  }
}

describe('keyword suggestions for search-ads', () => {
  it('builds the campaign report body for "taps and spend per campaign last week": totals, sorted by spend', () => {
    const suggestion = suggest('taps and spend per campaign last week');
    expect(suggestion.endpoint.path).toBe(REPORT);
    expect(suggestion.params).toEqual({});
    expect(suggestion.body).toEqual({
      startTime: '2026-11-09',
      endTime: '2026-11-15',
      timeZone: 'UTC',
      selector: {
        orderBy: [{ field: 'localSpend', sortOrder: 'DESCENDING' }],
        pagination: { offset: 0, limit: 1000 },
      },
      returnRowTotals: true,
      returnGrandTotals: true,
      returnRecordsWithNoMetrics: false,
    });
    expect(suggestion.missing).toEqual([]);
    expect(suggestion.notes.join(' ')).toMatch(/2026-11-09 to 2026-11-15/);
    expectValid(suggestion);
  });

  it('asks for DAILY granularity when the question says per day or daily', () => {
    for (const question of ['spend per day per campaign last week', 'daily installs by campaign last 7 days']) {
      const suggestion = suggest(question);
      expect(suggestion.endpoint.path).toBe(REPORT);
      expect(suggestion.body).toMatchObject({ granularity: 'DAILY', returnRowTotals: true });
      expectValid(suggestion);
    }
    expect(suggest('daily installs by campaign last 7 days').body).toMatchObject({
      startTime: '2026-11-15',
      endTime: '2026-11-21',
      selector: { orderBy: [{ field: 'totalInstalls', sortOrder: 'DESCENDING' }] },
    });
  });

  it('keeps the report within the platform span of its granularity and leaves orderBy out when no metric is named', () => {
    const hourly = suggest('hourly campaign report for last month');
    expect(hourly.body).toMatchObject({ granularity: 'DAILY', startTime: '2026-10-01', endTime: '2026-10-31' });
    expect(hourly.notes.join(' ')).toMatch(/HOURLY allows 7 days/);
    expectValid(hourly);
    const daily = suggest('campaign performance per day last year');
    expect(daily.body).toMatchObject({ granularity: 'DAILY', startTime: '2025-10-03', endTime: '2025-12-31' });
    expect((daily.body!.selector as Record<string, unknown>).orderBy).toBeUndefined();
    expectValid(daily);
  });

  it('filters the report to the campaigns the question names', () => {
    const suggestion = suggest('taps for campaign 5123456789 yesterday');
    expect(suggestion.body).toMatchObject({
      startTime: '2026-11-21',
      endTime: '2026-11-21',
      selector: { conditions: [{ field: 'campaignId', operator: 'IN', values: ['5123456789'] }] },
    });
    expectValid(suggestion);
  });

  it('lists the campaigns with limit and offset for "list my campaigns"', () => {
    const suggestion = suggest('list my campaigns');
    expect(suggestion.endpoint.path).toBe('/api/v5/campaigns');
    expect(suggestion.params).toEqual({ limit: 100, offset: 0 });
    expect(suggestion.missing).toEqual([]);
    expect(suggestion.notes.join(' ')).toMatch(/pagination\.totalResults/);
    expectValid(suggestion);
  });

  it('answers "which organizations can I access" with the ACLs', () => {
    const suggestion = suggest('which organizations can I access');
    expect(suggestion.endpoint.path).toBe('/api/v5/acls');
    expect(suggestion.params).toEqual({});
    expectValid(suggestion);
  });

  it('gives the keywords endpoint for "keywords of an ad group" and names the path ids as missing', () => {
    const suggestion = suggest('keywords of an ad group');
    expect(suggestion.endpoint.path).toBe(KEYWORDS);
    expect(suggestion.path).toBeUndefined();
    expect(suggestion.missing.map((missing) => missing.name)).toEqual(['campaignId', 'adgroupId']);
    expect(suggestion.missing[0]!.howToGet).toMatch(/\/api\/v5\/campaigns .*data\[\]\.id.*in the path/);
    expect(suggestion.missing[1]!.howToGet).toMatch(/\/api\/v5\/campaigns\/\{campaignId\}\/adgroups/);
    expect(suggestion.notes.join(' ')).toMatch(/replace \{campaignId\} and \{adgroupId\}/);
    expectValid(suggestion);
  });

  it('puts the ids the question names in the path', () => {
    const suggestion = suggest('keywords of ad group 6234567890 in campaign 5123456789');
    expect(suggestion.endpoint.path).toBe(KEYWORDS);
    expect(suggestion.path).toBe('/api/v5/campaigns/5123456789/adgroups/6234567890/targetingkeywords');
    expect(suggestion.missing).toEqual([]);
    const adGroups = suggest('ad groups of campaign 5123456789');
    expect(adGroups.path).toBe('/api/v5/campaigns/5123456789/adgroups');
    expect(adGroups.params).toEqual({ limit: 100, offset: 0 });
  });
});

describe('search-ads beside video-ads on one key', () => {
  it('leaves campaign and spend questions without search-ads words to the video-ads report', () => {
    for (const question of ['spend and clicks per campaign last 7 days', 'spend per campaign last week']) {
      expect(suggest(question, BOTH).endpoint.provider).toBe('video-ads');
      expect(suggest(question, ALL).endpoint.provider).not.toBe('search-ads');
    }
    expect(suggest('list my campaigns', BOTH).endpoint.provider).toBe('video-ads');
  });

  it('takes the one campaign by id only when the question names an id', () => {
    expect(suggest('details of campaign 5123456789').endpoint.path).toBe('/api/v5/campaigns/{campaignId}');
    expect(suggest('details of campaign 5123456789').path).toBe('/api/v5/campaigns/5123456789');
    expect(suggest('campaign budget').endpoint.path).toBe('/api/v5/campaigns');
  });

  it('answers taps, installs, keywords and organizations from search-ads', () => {
    expect(suggest('taps and spend per campaign last week', BOTH).endpoint.path).toBe(REPORT);
    expect(suggest('installs per campaign last month', BOTH).endpoint.path).toBe(REPORT);
    expect(suggest('keywords of an ad group', BOTH).endpoint.path).toBe(KEYWORDS);
    expect(suggest('which organizations can I access', BOTH).endpoint.path).toBe('/api/v5/acls');
  });

  it('reads search-ads words', () => {
    expect(asksForSearchAds('Taps and CPT on Apple search ads')).toBe(true);
    expect(asksForSearchAds('spend per campaign')).toBe(false);
  });
});
