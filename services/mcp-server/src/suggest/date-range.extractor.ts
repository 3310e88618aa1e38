/** An inclusive range of calendar days, YYYY-MM-DD (the report endpoints' start_date and end_date). */
export interface DateRange {
  start: string;
  end: string;
  /** What in the question gave the range, e.g. "last 7 days" or "October 2026". */
  matched: string;
}

const DAY_MS = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_PATTERN =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fourteen: 14,
  thirty: 30,
  sixty: 60,
  ninety: 90,
};

/**
 * Finds the date range a question asks about, relative to `today` (UTC calendar days). Explicit dates win over
 * month names, which win over relative phrases. "Last N days" means the N complete days before today, as
 * advertising dashboards count them. Undefined when the question names no period.
 */
export function extractDateRange(question: string, today: Date): DateRange | undefined {
  const text = question.toLowerCase();
  const todayDay = Math.floor(today.getTime() / DAY_MS);
  return explicitDates(text, todayDay) ?? monthNames(text, todayDay) ?? relative(text, todayDay);
}

function explicitDates(text: string, today: number): DateRange | undefined {
  const found: { day: number; at: number; raw: string }[] = [];
  const add = (day: number | undefined, at: number, raw: string) => {
    if (day !== undefined) found.push({ day, at, raw });
  };
  for (const match of text.matchAll(/\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b/g)) {
    add(dayOf(Number(match[1]), Number(match[2]), Number(match[3])), match.index, match[0]);
  }
  // "October 5, 2026", "Oct 5" and "5 October 2026", "5th of October"
  for (const match of text.matchAll(
    new RegExp(`\\b${MONTH_PATTERN}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s*(\\d{4}))?`, 'g'),
  )) {
    const month = monthIndex(match[1]!);
    add(dayOf(yearFor(match[3], month, today), month + 1, Number(match[2])), match.index, match[0]);
  }
  for (const match of text.matchAll(
    new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_PATTERN}\\b(?:,?\\s*(\\d{4}))?`, 'g'),
  )) {
    const month = monthIndex(match[2]!);
    add(dayOf(yearFor(match[3], month, today), month + 1, Number(match[1])), match.index, match[0]);
  }
  if (found.length === 0) return undefined;
  found.sort((a, b) => a.at - b.at);
  const first = found[0]!;
  if (found.length === 1) {
    const since = /\b(since|from|after)\s+$/.test(text.slice(Math.max(0, first.at - 8), first.at));
    if (since && first.day < today) return range(first.day, today - 1, `since ${first.raw}`);
    return range(first.day, first.day, first.raw);
  }
  const last = found[found.length - 1]!;
  return range(Math.min(first.day, last.day), Math.max(first.day, last.day), `${first.raw} to ${last.raw}`);
}

function monthNames(text: string, today: number): DateRange | undefined {
  const match = new RegExp(`\\b${MONTH_PATTERN}\\b(?:\\s+(\\d{4}))?`).exec(text);
  if (!match) return undefined;
  // "may" is also a verb: only "may" with a year, or after in/for/of/during, is the month.
  if (match[1] === 'may' && !match[2] && !/\b(in|for|of|during)\s+$/.test(text.slice(0, match.index))) return undefined;
  const month = monthIndex(match[1]!);
  const year = yearFor(match[2], month, today);
  const start = dayOf(year, month + 1, 1)!;
  const end = Math.min(dayOf(year, month + 2, 1)! - 1, today);
  if (end < start) return undefined;
  return range(start, end, match[0]);
}

function relative(text: string, today: number): DateRange | undefined {
  const todayDate = new Date(today * DAY_MS);
  const n = /\b(?:last|past|previous|prior)\s+(\d{1,3}|[a-z]+)\s+(day|week|month)s?\b/.exec(text);
  if (n) {
    const count = /^\d+$/.test(n[1]!) ? Number(n[1]) : NUMBER_WORDS[n[1]!];
    if (count && count > 0) {
      const unit = n[2]!;
      const start = unit === 'day' ? today - count : unit === 'week' ? today - 7 * count : monthsBefore(today, count);
      return range(start, today - 1, n[0]);
    }
  }
  if (/\byesterday\b/.test(text)) return range(today - 1, today - 1, 'yesterday');
  if (/\btoday\b/.test(text)) return range(today, today, 'today');
  const weekday = (todayDate.getUTCDay() + 6) % 7; // Monday = 0
  const monday = today - weekday;
  const week = /\b(last|previous|past|this|current)\s+week\b|\bweek to date\b|\bwtd\b/.exec(text);
  if (week) {
    return week[1] === 'last' || week[1] === 'previous' || week[1] === 'past'
      ? range(monday - 7, monday - 1, week[0])
      : range(monday, today, week[0]);
  }
  const year = todayDate.getUTCFullYear();
  const monthNumber = todayDate.getUTCMonth() + 1;
  const month = /\b(last|previous|past|this|current)\s+month\b|\bmonth to date\b|\bmtd\b/.exec(text);
  if (month) {
    const first = dayOf(year, monthNumber, 1)!;
    return month[1] === 'last' || month[1] === 'previous' || month[1] === 'past'
      ? range(dayOf(year, monthNumber - 1, 1)!, first - 1, month[0])
      : range(first, today, month[0]);
  }
  const quarter = /\bq([1-4])(?:\s+(\d{4}))?\b/.exec(text);
  if (quarter) {
    const q = Number(quarter[1]);
    let y = quarter[2] ? Number(quarter[2]) : year;
    if (!quarter[2] && dayOf(y, 3 * q - 2, 1)! > today) y--;
    return range(dayOf(y, 3 * q - 2, 1)!, Math.min(dayOf(y, 3 * q + 1, 1)! - 1, today), quarter[0]);
  }
  const yearMatch = /\b(last|previous|this|current)\s+year\b|\byear to date\b|\bytd\b/.exec(text);
  if (yearMatch) {
    return yearMatch[1] === 'last' || yearMatch[1] === 'previous'
      ? range(dayOf(year - 1, 1, 1)!, dayOf(year, 1, 1)! - 1, yearMatch[0])
      : range(dayOf(year, 1, 1)!, today, yearMatch[0]);
  }
  return undefined;
}

/** The same day of the month `count` months earlier, or that month's last day when it is shorter. */
function monthsBefore(day: number, count: number): number {
  const date = new Date(day * DAY_MS);
  const firstOfTarget = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - count, 1) / DAY_MS;
  const length = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - count + 1, 1) / DAY_MS - firstOfTarget;
  return firstOfTarget + Math.min(date.getUTCDate(), length) - 1;
}

function monthIndex(name: string): number {
  return MONTHS.findIndex((month) => month.startsWith(name.slice(0, 3)));
}

/** An explicit year, else the latest year in which that month has already begun. */
function yearFor(explicit: string | undefined, month: number, today: number): number {
  if (explicit) return Number(explicit);
  const now = new Date(today * DAY_MS);
  return month > now.getUTCMonth() ? now.getUTCFullYear() - 1 : now.getUTCFullYear();
}

/** Days since 1970-01-01 of a calendar date; months out of 1..12 roll over; invalid days give undefined. */
function dayOf(year: number, month: number, day: number): number | undefined {
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (day < 1 || day > 31 || (month >= 1 && month <= 12 && date.getUTCDate() !== day)) return undefined;
  return ms / DAY_MS;
}

function range(start: number, end: number, matched: string): DateRange {
  return { start: isoDay(start), end: isoDay(end), matched: matched.trim() };
}

export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function epochDay(iso: string): number {
  return Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
}
