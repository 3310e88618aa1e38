import { dayOf, monthOf, secondsToMonthEnd } from './calendar';

describe('calendar (UTC)', () => {
  it('names the UTC month and day, also across day, month and year ends in any order', () => {
    const moments = [
      Date.UTC(2026, 10, 24, 23, 59, 59, 999),
      Date.UTC(2026, 10, 25, 0, 0, 0, 0),
      Date.UTC(2026, 10, 30, 23, 59, 59, 999),
      Date.UTC(2026, 11, 1),
      Date.UTC(2027, 0, 1),
      Date.UTC(2026, 11, 31, 12),
      Date.UTC(2024, 1, 29, 8),
    ];
    for (const ms of moments) {
      const iso = new Date(ms).toISOString();
      expect(monthOf(ms)).toBe(iso.slice(0, 7));
      expect(dayOf(ms)).toBe(iso.slice(8, 10));
    }
  });

  it('counts the seconds to the start of the next UTC month, at least one', () => {
    expect(secondsToMonthEnd(Date.UTC(2026, 10, 30, 23, 59, 0))).toBe(60);
    expect(secondsToMonthEnd(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe(1);
    expect(secondsToMonthEnd(Date.UTC(2026, 1, 1))).toBe(28 * 86_400);
  });
});
