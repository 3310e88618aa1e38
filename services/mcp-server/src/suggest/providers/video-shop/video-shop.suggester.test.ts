import { encodeParams, validateBody, validateParams, type ProviderId } from '@gateway/catalogue';
import { EndpointIndex } from '../../endpoint.index';
import { suggestByKeywords } from '../../keyword.suggester';

const TODAY = new Date('2026-11-22T10:00:00Z');
const index = new EndpointIndex();
const REPORT = '/v1.3/report/integrated/get/';

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
