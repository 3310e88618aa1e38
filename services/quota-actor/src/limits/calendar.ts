/**
 * Quota months are calendar months in UTC (issue: "the calendar-month usage (UTC)"). Every decision asks for its
 * month and day, so the strings of the current UTC day are kept until the day ends instead of being formatted
 * from a Date each time (that formatting was ~6 % of the actor's CPU).
 */
interface UtcDay {
  startMs: number;
  endMs: number;
  month: string;
  day: string;
  monthEndMs: number;
}

const DAY_MS = 86_400_000;
let current: UtcDay | undefined;

function utcDay(nowMs: number): UtcDay {
  if (current && nowMs >= current.startMs && nowMs < current.endMs) return current;
  const startMs = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const date = new Date(startMs);
  const iso = date.toISOString();
  current = {
    startMs,
    endMs: startMs + DAY_MS,
    month: iso.slice(0, 7),
    day: iso.slice(8, 10),
    monthEndMs: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  };
  return current;
}

export function monthOf(nowMs: number): string {
  return utcDay(nowMs).month;
}

export function dayOf(nowMs: number): string {
  return utcDay(nowMs).day;
}

export function secondsToMonthEnd(nowMs: number): number {
  return Math.max(1, Math.ceil((utcDay(nowMs).monthEndMs - nowMs) / 1000));
}
