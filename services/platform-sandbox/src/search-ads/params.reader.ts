import { invalidValue, type SearchAdsResult } from './envelope';

/** The platform's page size cap on every list and report. */
export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 20;

export interface Paging {
  offset: number;
  limit: number;
}

/** YYYY-MM-DD of a real calendar day, as its epoch day; undefined otherwise. */
export function parseIsoDay(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return ms / 86_400_000;
}

function integerOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,16}$/.test(value)) return Number(value);
  return undefined;
}

/** limit (1..1000) and offset (>= 0), from a query or a report selector's pagination; `prefix` names the field. */
export function readPaging(
  source: { limit?: unknown; offset?: unknown },
  prefix = '',
  defaults: Paging = { offset: 0, limit: DEFAULT_LIMIT },
): Paging | SearchAdsResult {
  let limit = defaults.limit;
  let offset = defaults.offset;
  if (source.limit !== undefined) {
    const value = integerOf(source.limit);
    if (value === undefined || value < 1 || value > MAX_LIMIT) {
      return invalidValue(`${prefix}limit`, `limit must be an integer between 1 and ${MAX_LIMIT}`);
    }
    limit = value;
  }
  if (source.offset !== undefined) {
    const value = integerOf(source.offset);
    if (value === undefined || value < 0) return invalidValue(`${prefix}offset`, 'offset must be an integer >= 0');
    offset = value;
  }
  return { offset, limit };
}

/** limit/offset of a list call's query; a repeated or empty value is refused. */
export function queryPaging(query: URLSearchParams): Paging | SearchAdsResult {
  const source: { limit?: string; offset?: string } = {};
  for (const name of ['limit', 'offset'] as const) {
    const values = query.getAll(name);
    if (values.length > 1) return invalidValue(name, `${name} is given more than once`);
    if (values.length === 1) source[name] = values[0];
  }
  return readPaging(source);
}

export function page<T>(items: readonly T[], paging: Paging): { items: T[]; totalResults: number } {
  return { items: items.slice(paging.offset, paging.offset + paging.limit), totalResults: items.length };
}
