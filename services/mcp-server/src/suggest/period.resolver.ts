import { epochDay, extractDateRange } from './date-range.extractor';

const DEFAULT_RANGE_DAYS = 7;

/**
 * The UTC days the question names (epoch days, both ends included), or the last complete days before today when
 * it names none; a note says which.
 */
export function resolvePeriod(question: string, today: Date, notes: string[]): { start: number; end: number } {
  const found = extractDateRange(question, today);
  if (found) {
    notes.push(`Period "${found.matched}": ${found.start} to ${found.end} (UTC calendar days).`);
    return { start: epochDay(found.start), end: epochDay(found.end) };
  }
  const todayDay = Math.floor(today.getTime() / 86_400_000);
  notes.push(`No period named: the last ${DEFAULT_RANGE_DAYS} complete days (UTC).`);
  return { start: todayDay - DEFAULT_RANGE_DAYS, end: todayDay - 1 };
}
