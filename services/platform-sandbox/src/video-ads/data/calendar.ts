const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a strict YYYY-MM-DD date, or undefined when it is not a real calendar date. */
export function parseEpochDay(text: string): number | undefined {
  const match = DATE_RE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return ms / DAY_MS;
}

export function epochDayToDate(epochDay: number): string {
  return new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
}

/** "YYYY-MM-DD HH:MM:SS", the platform's time format (stat_time_day, create_time of records). */
export function formatDateTime(epochSeconds: number): string {
  const iso = new Date(epochSeconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

export function dayStart(epochDay: number): string {
  return `${epochDayToDate(epochDay)} 00:00:00`;
}

export function hourStart(epochDay: number, hour: number): string {
  return `${epochDayToDate(epochDay)} ${hour < 10 ? '0' : ''}${hour}:00:00`;
}

/** Parses "YYYY-MM-DD HH:MM:SS" to unix seconds, or undefined. */
export function parseDateTime(text: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const day = parseEpochDay(match[1] as string);
  const [hours, minutes, seconds] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (day === undefined || hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return day * 86_400 + hours * 3600 + minutes * 60 + seconds;
}

export const SECONDS_PER_DAY = 86_400;
