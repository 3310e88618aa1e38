import { paramError, type MarketResult } from './envelope';

const DAY_S = 86_400;

/** Days since 1970-01-01 of a real calendar date, or undefined. */
function epochDay(year: number, month: number, day: number): number | undefined {
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return ms / 86_400_000;
}

/** The three date formats of the platform: DD-MM-YYYY (ads), YYYYMMDD (AMS performance), YYYY-MM-DD (AMS). */
export type DateFormat = 'DD-MM-YYYY' | 'YYYYMMDD' | 'YYYY-MM-DD';

const DATE_PATTERNS: Record<DateFormat, { re: RegExp; order: [number, number, number] }> = {
  'DD-MM-YYYY': { re: /^(\d{2})-(\d{2})-(\d{4})$/, order: [3, 2, 1] },
  YYYYMMDD: { re: /^(\d{4})(\d{2})(\d{2})$/, order: [1, 2, 3] },
  'YYYY-MM-DD': { re: /^(\d{4})-(\d{2})-(\d{2})$/, order: [1, 2, 3] },
};

export function parseDate(text: string, format: DateFormat): number | undefined {
  const { re, order } = DATE_PATTERNS[format];
  const match = re.exec(text);
  if (!match) return undefined;
  return epochDay(Number(match[order[0]]), Number(match[order[1]]), Number(match[order[2]]));
}

export function formatDate(day: number, format: DateFormat): string {
  const iso = new Date(day * 86_400_000).toISOString();
  const [y, m, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  if (format === 'DD-MM-YYYY') return `${d}-${m}-${y}`;
  if (format === 'YYYYMMDD') return `${y}${m}${d}`;
  return `${y}-${m}-${d}`;
}

export function dayOf(epochSeconds: number): number {
  return Math.floor(epochSeconds / DAY_S);
}

/** How a list parameter is written: see MarketParams.list. */
export type ListForm = 'repeated' | 'either';

/**
 * Typed access to one call's parameters: the query (decoded, names may repeat for list parameters) and, on
 * POST, the JSON body. The first problem is kept and later reads return fallbacks, so a handler reads what
 * it needs and checks `error` once.
 */
export class MarketParams {
  error: MarketResult | undefined;

  constructor(
    private readonly query: ReadonlyMap<string, readonly string[]>,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {}

  fail(message: string): void {
    if (!this.error) this.error = paramError(message);
  }

  /** A single query value; empty counts as absent. A repeated scalar is refused rather than guessed at. */
  string(name: string): string | undefined {
    const values = this.query.get(name);
    if (!values || values.length === 0) return undefined;
    if (values.length > 1) {
      this.fail(`${name} is given more than once.`);
      return undefined;
    }
    return values[0] === '' ? undefined : values[0];
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) this.fail(`${name} is required.`);
    return value ?? '';
  }

  /** A non-negative integer within [min, max]. */
  int(name: string, options: { min: number; max: number; required?: boolean; fallback?: number }): number {
    const fallback = options.fallback ?? options.min;
    const text = options.required ? this.requiredString(name) : this.string(name);
    if (text === undefined || text === '') return fallback;
    const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= options.min && value <= options.max)) {
      this.fail(`${name} must be an integer between ${options.min} and ${options.max}.`);
      return fallback;
    }
    return value;
  }

  enumOf<T extends string>(name: string, values: readonly T[], required: true): T;
  enumOf<T extends string>(name: string, values: readonly T[], required?: false): T | undefined;
  enumOf<T extends string>(name: string, values: readonly T[], required = false): T | undefined {
    const value = required ? this.requiredString(name) : this.string(name);
    if (value === undefined || value === '') return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.fail(`${name} must be one of ${values.join(', ')}.`);
    return undefined;
  }

  /**
   * A list parameter in the form the platform documents for it (docs/providers.md, marketplace): `repeated` takes
   * one value per occurrence (`a=1&a=2`; `a=1,2` is the one value "1,2"); `either` also splits comma-joined
   * values (`a=1,2`, also mixed with repeats), for lists whose form the platform's reference leaves open.
   */
  list(name: string, form: ListForm): string[] {
    const values = this.query.get(name) ?? [];
    return (form === 'repeated' ? values : values.flatMap((value) => value.split(',')))
      .map((value) => value.trim())
      .filter((value) => value !== '');
  }

  requiredList(name: string, form: ListForm, max: number, pattern?: RegExp): string[] {
    const values = this.list(name, form);
    if (values.length === 0) this.fail(`${name} is required.`);
    else if (values.length > max) this.fail(`${name} accepts at most ${max} values.`);
    else if (pattern && values.some((value) => !pattern.test(value))) this.fail(`${name} has an invalid value.`);
    return values;
  }

  /** A list of numeric ids as numbers (ids on this platform are JSON numbers). */
  idList(name: string, form: ListForm, max: number): number[] {
    return this.requiredList(name, form, max, /^\d{1,16}$/).map(Number);
  }

  /** Unix seconds. */
  seconds(name: string, required: boolean): number | undefined {
    const text = required ? this.requiredString(name) : this.string(name);
    if (text === undefined || text === '') return undefined;
    if (!/^\d{1,11}$/.test(text)) {
      this.fail(`${name} must be a unix timestamp in seconds.`);
      return undefined;
    }
    return Number(text);
  }

  /** A required date in the platform's format for this path, as an epoch day. */
  date(name: string, format: DateFormat): number | undefined {
    const text = this.requiredString(name);
    if (text === '') return undefined;
    const day = parseDate(text, format);
    if (day === undefined) this.fail(`${name} must be a date in the format ${format}.`);
    return day;
  }

  bodyValue(name: string): unknown {
    return this.body[name];
  }

  /** A required body field of the given JSON type. */
  bodyRequired(name: string, type: 'string' | 'number' | 'object' | 'array'): unknown {
    const value = this.body[name];
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    if (value === undefined || value === null) this.fail(`${name} is required.`);
    else if (actual !== type) this.fail(`${name} must be a ${type}.`);
    else if (type === 'string' && value === '') this.fail(`${name} is required.`);
    return value;
  }
}
