/** Quota months are calendar months in UTC (issue: "the calendar-month usage (UTC)"). */
export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

export function dayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(8, 10);
}

export function secondsToMonthEnd(nowMs: number): number {
  const now = new Date(nowMs);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - nowMs) / 1000));
}
