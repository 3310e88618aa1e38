import { formatDate, MarketParams, parseDate } from './params.reader';

describe('marketplace date formats', () => {
  const day = Date.UTC(2026, 9, 31) / 86_400_000;

  it('reads each format only in its own spelling', () => {
    expect(parseDate('31-10-2026', 'DD-MM-YYYY')).toBe(day);
    expect(parseDate('20261031', 'YYYYMMDD')).toBe(day);
    expect(parseDate('2026-10-31', 'YYYY-MM-DD')).toBe(day);
    expect(parseDate('2026-10-31', 'DD-MM-YYYY')).toBeUndefined();
    expect(parseDate('31-10-2026', 'YYYYMMDD')).toBeUndefined();
    expect(parseDate('20261031', 'YYYY-MM-DD')).toBeUndefined();
  });

  it('refuses dates that are not on the calendar or carry extra characters', () => {
    expect(parseDate('30-02-2026', 'DD-MM-YYYY')).toBeUndefined();
    expect(parseDate('20261301', 'YYYYMMDD')).toBeUndefined();
    expect(parseDate('2026-10-31 ', 'YYYY-MM-DD')).toBeUndefined();
    expect(parseDate('1-10-2026', 'DD-MM-YYYY')).toBeUndefined();
  });

  it('writes each format back the same way', () => {
    expect(formatDate(day, 'DD-MM-YYYY')).toBe('31-10-2026');
    expect(formatDate(day, 'YYYYMMDD')).toBe('20261031');
    expect(formatDate(day, 'YYYY-MM-DD')).toBe('2026-10-31');
  });
});

describe('marketplace list parameters', () => {
  const params = (query: Record<string, string[]>) => new MarketParams(new Map(Object.entries(query)));

  it('splits comma-joined values only for lists whose form the reference leaves open', () => {
    const query = { order_sn_list: ['2511250AB1CDEF,2511250AB1CDEG', '2511250AB1CDEH'] };
    expect(params(query).list('order_sn_list', 'either')).toEqual([
      '2511250AB1CDEF',
      '2511250AB1CDEG',
      '2511250AB1CDEH',
    ]);
    expect(params(query).list('order_sn_list', 'repeated')).toEqual([
      '2511250AB1CDEF,2511250AB1CDEG',
      '2511250AB1CDEH',
    ]);
  });

  it('refuses a required list that is missing, too long or holds a value of the wrong shape', () => {
    const missing = params({});
    missing.requiredList('item_id_list', 'either', 50);
    expect(missing.error).toMatchObject({ error: 'error_param', message: 'item_id_list is required.' });
    const long = params({ item_id_list: [Array.from({ length: 51 }, (_unused, i) => String(i + 1)).join(',')] });
    long.idList('item_id_list', 'either', 50);
    expect(long.error).toMatchObject({ message: 'item_id_list accepts at most 50 values.' });
    const joined = params({ item_id_list: ['1,2'] });
    joined.idList('item_id_list', 'repeated', 50);
    expect(joined.error).toMatchObject({ message: 'item_id_list has an invalid value.' });
  });
});
