import { formatDate, parseDate } from './params.reader';

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
