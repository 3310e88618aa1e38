import { extractDateRange } from './date-range.extractor';

// A Sunday late in the month, so weeks and months are easy to check by hand.
const TODAY = new Date('2026-11-22T15:30:00Z');

function range(question: string, today = TODAY) {
  const found = extractDateRange(question, today);
  return found && [found.start, found.end];
}

describe('date range extraction for find_endpoint', () => {
  it.each([
    ['spend in the last 7 days', ['2026-11-15', '2026-11-21']],
    ['clicks over the past 30 days', ['2026-10-23', '2026-11-21']],
    ['last seven days', ['2026-11-15', '2026-11-21']],
    ['previous 2 weeks', ['2026-11-08', '2026-11-21']],
    ['last 3 months', ['2026-08-22', '2026-11-21']],
    ['yesterday', ['2026-11-21', '2026-11-21']],
    ['what did we spend today', ['2026-11-22', '2026-11-22']],
    ['last week', ['2026-11-09', '2026-11-15']],
    ['this week', ['2026-11-16', '2026-11-22']],
    ['last month', ['2026-10-01', '2026-10-31']],
    ['month to date', ['2026-11-01', '2026-11-22']],
    ['this year', ['2026-01-01', '2026-11-22']],
    ['Q3', ['2026-07-01', '2026-09-30']],
  ])('reads "%s" relative to today', (question, expected) => {
    expect(range(question)).toEqual(expected);
  });

  it.each([
    ['spend by campaign in October 2026', ['2026-10-01', '2026-10-31']],
    ['October', ['2026-10-01', '2026-10-31']],
    ['in December', ['2025-12-01', '2025-12-31']],
    ['November so far', ['2026-11-01', '2026-11-22']],
    ['Feb 2024', ['2024-02-01', '2024-02-29']],
    ['for May', ['2026-05-01', '2026-05-31']],
  ])('reads the month name in "%s" (the latest such month that has begun)', (question, expected) => {
    expect(range(question)).toEqual(expected);
  });

  it.each([
    ['from 2026-10-01 to 2026-10-15', ['2026-10-01', '2026-10-15']],
    ['between 2026-10-15 and 2026-10-01', ['2026-10-01', '2026-10-15']],
    ['on 2026-10-05', ['2026-10-05', '2026-10-05']],
    ['since 2026-11-01', ['2026-11-01', '2026-11-21']],
    ['October 3, 2026 to October 9, 2026', ['2026-10-03', '2026-10-09']],
    ['from 1 October to 7 October', ['2026-10-01', '2026-10-07']],
    ['2026/10/01 - 2026/10/02', ['2026-10-01', '2026-10-02']],
  ])('reads explicit dates in "%s"', (question, expected) => {
    expect(range(question)).toEqual(expected);
  });

  it('prefers explicit dates over month names and relative phrases', () => {
    expect(range('last week, I mean 2026-10-01 to 2026-10-02 in October')).toEqual(['2026-10-01', '2026-10-02']);
  });

  it('ignores impossible dates and "may" as a verb, and returns nothing when no period is named', () => {
    expect(range('2026-02-30')).toBeUndefined();
    expect(range('which campaigns may be overspending')).toBeUndefined();
    expect(range('list my advertisers')).toBeUndefined();
  });

  it('handles a month-end today for "last N months"', () => {
    expect(range('last 1 month', new Date('2026-03-31T00:00:00Z'))).toEqual(['2026-02-28', '2026-03-30']);
  });
});
