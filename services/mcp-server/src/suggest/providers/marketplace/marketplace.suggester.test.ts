import { encodeParams, validateParams, type ProviderId } from '@gateway/catalogue';
import { EndpointIndex } from '../../endpoint.index';
import { suggestByKeywords } from '../../keyword.suggester';
import { marketplaceAppOf } from './marketplace-intent.extractor';

// Sunday 2026-11-22: yesterday is 2026-11-21, last week is Monday 2026-11-09 to Sunday 2026-11-15.
const TODAY = new Date('2026-11-22T10:00:00Z');
const DAY = 86_400;
const index = new EndpointIndex();
const SELLER: ProviderId[] = ['marketplace'];
const ADS: ProviderId[] = ['marketplace-ads'];
const AFFILIATE: ProviderId[] = ['marketplace-affiliate'];
const THREE: ProviderId[] = ['marketplace', 'marketplace-ads', 'marketplace-affiliate'];
const SIX: ProviderId[] | undefined = undefined;

const ORDERS = '/api/v2/order/get_order_list';
const ADS_DAILY = '/api/v2/ads/get_all_cpc_ads_daily_performance';
const CAMPAIGN_DAILY = '/api/v2/ads/get_product_campaign_daily_performance';
const BALANCE = '/api/v2/ads/get_total_balance';
const AFF_PERFORMANCE = '/api/v2/ams/get_shop_performance';
const CONVERSIONS = '/api/v2/ams/get_conversion_report';
const FRESHNESS = '/api/v2/ams/get_performance_data_update_time';

function suggest(question: string, providers?: ProviderId[]) {
  return suggestByKeywords(index, question, TODAY, providers).suggestion!;
}

/** The suggestion passes the catalogue as call_endpoint will send it, and needs nothing more. */
function expectValid(suggestion: ReturnType<typeof suggest>): void {
  expect(validateParams(suggestion.endpoint, encodeParams(suggestion.params, suggestion.endpoint))).toEqual([]);
  expect(suggestion.missing).toEqual([]);
  expect(suggestion.body).toBeUndefined();
}

describe('marketplace app from the wording', () => {
  it.each([
    ['affiliate sales last 30 days', 'marketplace-affiliate'],
    ['commission paid to KOLs', 'marketplace-affiliate'],
    ['ad spend per day', 'marketplace-ads'],
    ['campaign performance', 'marketplace-ads'],
    ['ads balance', 'marketplace-ads'],
    ['orders of the last week', 'marketplace'],
    ['items that are banned', 'marketplace'],
  ])('reads "%s" as a question for %s', (question, app) => {
    expect(marketplaceAppOf(question)).toBe(app);
  });

  it('names no app for a question without seller, ads or affiliate words', () => {
    expect(marketplaceAppOf('zzz qqq')).toBeUndefined();
  });
});

describe('keyword suggestions for the marketplace apps', () => {
  it.each([
    ['the three apps', THREE],
    ['the seller app only', SELLER],
  ] as const)('"orders of the last week" gives the order list in unix seconds (key: %s)', (_key, providers) => {
    const suggestion = suggest('orders of the last week', [...providers]);
    expect(suggestion.endpoint.path).toBe(ORDERS);
    expect(suggestion.params).toEqual({
      time_range_field: 'create_time',
      time_from: Date.UTC(2026, 10, 9) / 1000,
      time_to: Date.UTC(2026, 10, 16) / 1000 - 1,
      page_size: 100,
    });
    expectValid(suggestion);
  });

  it('keeps the order list within 15 days and reads an order status', () => {
    const suggestion = suggest('orders ready to ship in the last 60 days', THREE);
    const { time_from: from, time_to: to } = suggestion.params as { time_from: number; time_to: number };
    expect(to - from).toBeLessThanOrEqual(15 * DAY);
    expect(to).toBe(Date.UTC(2026, 10, 22) / 1000 - 1);
    expect(suggestion.params.order_status).toBe('READY_TO_SHIP');
    expect(suggestion.notes.join(' ')).toMatch(/15 days/);
    expectValid(suggestion);
  });

  it.each([
    ['the three apps', THREE],
    ['the ads app only', ADS],
  ] as const)('"ad spend per day last 14 days" gives the daily ads performance in DD-MM-YYYY (key: %s)', (_k, p) => {
    const suggestion = suggest('ad spend per day last 14 days', [...p]);
    expect(suggestion.endpoint.path).toBe(ADS_DAILY);
    expect(suggestion.params).toEqual({ start_date: '08-11-2026', end_date: '21-11-2026' });
    expectValid(suggestion);
  });

  it('keeps ads performance within one month', () => {
    const suggestion = suggest('daily ad spend over the last 90 days', THREE);
    expect(suggestion.endpoint.path).toBe(ADS_DAILY);
    expect(suggestion.params).toEqual({ start_date: '22-10-2026', end_date: '21-11-2026' });
    expect(suggestion.notes.join(' ')).toMatch(/one month/);
    expectValid(suggestion);
  });

  it('"ads balance" gives the total balance', () => {
    const suggestion = suggest('ads balance', THREE);
    expect([suggestion.endpoint.provider, suggestion.endpoint.path]).toEqual(['marketplace-ads', BALANCE]);
    expectValid(suggestion);
  });

  it('"campaign performance" asks for campaign_id_list from the campaign id list', () => {
    const suggestion = suggest('campaign performance', THREE);
    expect(suggestion.endpoint.path).toBe(CAMPAIGN_DAILY);
    expect(suggestion.params).toEqual({ start_date: '15-11-2026', end_date: '21-11-2026' });
    expect(suggestion.missing.map((param) => param.name)).toEqual(['campaign_id_list']);
    expect(suggestion.missing[0]!.howToGet).toContain('/api/v2/ads/get_product_level_campaign_id_list');
    const filled = encodeParams({ ...suggestion.params, campaign_id_list: ['5100000001'] }, suggestion.endpoint);
    expect(validateParams(suggestion.endpoint, filled)).toEqual([]);
  });

  it('takes campaign ids from the question', () => {
    const suggestion = suggest('campaign performance of 5100000001 and 5100000002 yesterday', THREE);
    expect(suggestion.params).toEqual({
      start_date: '21-11-2026',
      end_date: '21-11-2026',
      campaign_id_list: ['5100000001', '5100000002'],
    });
    expect(encodeParams(suggestion.params, suggestion.endpoint).campaign_id_list).toBe('5100000001,5100000002');
    expectValid(suggestion);
  });

  it.each([
    ['the three apps', THREE],
    ['the affiliate app only', AFFILIATE],
    ['every provider', SIX],
  ] as const)('"affiliate sales last 30 days" gives Last30d in YYYYMMDD ending yesterday (key: %s)', (_k, p) => {
    const suggestion = suggest('affiliate sales last 30 days', p ? [...p] : undefined);
    expect(suggestion.endpoint.path).toBe(AFF_PERFORMANCE);
    expect(suggestion.params).toEqual({
      period_type: 'Last30d',
      start_date: '20261023',
      end_date: '20261121',
      order_type: 'ConfirmedOrder',
      channel: 'AllChannel',
    });
    expectValid(suggestion);
  });

  it.each([
    ['affiliate sales last week', { period_type: 'Week', start_date: '20261109', end_date: '20261115' }],
    ['affiliate sales yesterday', { period_type: 'Day', start_date: '20261121', end_date: '20261121' }],
    ['affiliate sales in October 2026', { period_type: 'Month', start_date: '20261001', end_date: '20261031' }],
    ['affiliate sales this month', { period_type: 'Month', start_date: '20261101', end_date: '20261121' }],
    ['affiliate sales last 7 days', { period_type: 'Last7d', start_date: '20261115', end_date: '20261121' }],
    ['affiliate sales', { period_type: 'Last7d', start_date: '20261115', end_date: '20261121' }],
    ['affiliate sales last 10 days', { period_type: 'Last30d', start_date: '20261023', end_date: '20261121' }],
  ])('fits "%s" to a period_type the affiliate report takes', (question, expected) => {
    const suggestion = suggest(question, THREE);
    expect(suggestion.params).toMatchObject(expected);
    expectValid(suggestion);
  });

  it('reads placed orders and a channel for affiliate performance', () => {
    const suggestion = suggest(
      'affiliate sales and commission from live streaming, placed orders too, last 30 days',
      AFFILIATE,
    );
    expect(suggestion.endpoint.path).toBe(AFF_PERFORMANCE);
    expect(suggestion.params).toMatchObject({ order_type: 'PlacedOrder', channel: 'LiveStreaming' });
    expectValid(suggestion);
  });

  it.each([
    ['the three apps', THREE],
    ['the affiliate app only', AFFILIATE],
  ] as const)(
    '"affiliate conversions" gives the first page of the conversion report in unix seconds (key: %s)',
    (_k, p) => {
      const suggestion = suggest('affiliate conversions', [...p]);
      expect(suggestion.endpoint.path).toBe(CONVERSIONS);
      expect(suggestion.params).toEqual({
        page_no: 1,
        page_size: 100,
        place_order_time_start: Date.UTC(2026, 10, 15) / 1000,
        place_order_time_end: Date.UTC(2026, 10, 22) / 1000,
      });
      expectValid(suggestion);
    },
  );

  it('keeps the conversion report within 3 months', () => {
    const suggestion = suggest('affiliate conversions last year', THREE);
    const params = suggestion.params as { place_order_time_start: number; place_order_time_end: number };
    expect(params.place_order_time_end - params.place_order_time_start).toBeLessThanOrEqual(92 * DAY);
    expectValid(suggestion);
  });

  it('"when was affiliate data last updated" gives the update time with marker_type', () => {
    const suggestion = suggest('when was affiliate data last updated', THREE);
    expect(suggestion.endpoint.path).toBe(FRESHNESS);
    expect(suggestion.params).toEqual({ marker_type: 'AmsMarker' });
    expectValid(suggestion);
  });

  it('lists active items paged by offset, and takes item ids for item details', () => {
    const items = suggest('list my items', THREE);
    expect(items.endpoint.path).toBe('/api/v2/product/get_item_list');
    expect(items.params).toEqual({ offset: 0, page_size: 100, item_status: ['NORMAL'] });
    expect(encodeParams(items.params, items.endpoint).item_status).toEqual(['NORMAL']);
    expectValid(items);
    const details = suggest('item details for 4200000001', THREE);
    expect(details.endpoint.path).toBe('/api/v2/product/get_item_base_info');
    expect(details.params).toEqual({ item_id_list: ['4200000001'] });
    expectValid(details);
  });

  it.each([
    ['the seller app', SELLER, 'marketplace'],
    ['the ads app', ADS, 'marketplace-ads'],
    ['the affiliate app', AFFILIATE, 'marketplace-affiliate'],
  ] as const)('with a key of %s only, every question lands on that app', (_k, providers, app) => {
    for (const question of [
      'orders of the last week',
      'ad spend per day last 14 days',
      'ads balance',
      'affiliate sales last 30 days',
      'when was affiliate data last updated',
      'zzz qqq',
    ]) {
      expect(suggest(question, [...providers]).endpoint.provider).toBe(app);
    }
  });

  it('starts at the named app when nothing matches', () => {
    expect(suggest('zzz qqq', THREE).endpoint.path).toBe('/api/v2/shop/get_shop_info');
    expect(suggest('zzz ads qqq', ['marketplace', 'marketplace-ads']).endpoint.path).toBe(BALANCE);
  });
});
