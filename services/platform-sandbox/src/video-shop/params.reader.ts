import { parseEpochDay } from '../video-ads/data/calendar';
import { paramError, type ShopResult } from './envelope';

/**
 * Typed access to the query (decoded values) and the JSON body of one call. The first problem is kept and
 * later reads only return fallbacks, so a handler reads everything it needs and checks `error` once.
 */
export class ShopParams {
  error: ShopResult | undefined;

  constructor(
    private readonly query: ReadonlyMap<string, string>,
    private readonly body: Readonly<Record<string, unknown>>,
  ) {}

  fail(message: string): void {
    if (!this.error) this.error = paramError(`Invalid params: ${message}`);
  }

  /** A query value; empty counts as absent, as on the platform. */
  string(name: string): string | undefined {
    const value = this.query.get(name);
    return value === undefined || value === '' ? undefined : value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) this.fail(`${name} is required.`);
    return value ?? '';
  }

  pageSize(required: boolean, fallback = 20): number {
    const text = this.string('page_size');
    if (text === undefined) {
      if (required) this.fail('page_size is required.');
      return fallback;
    }
    const value = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= 1 && value <= 100)) {
      this.fail('page_size must be an integer between 1 and 100.');
      return fallback;
    }
    return value;
  }

  enumOf<T extends string>(name: string, values: readonly T[], fallback: T): T;
  enumOf<T extends string>(name: string, values: readonly T[]): T | undefined;
  enumOf<T extends string>(name: string, values: readonly T[], fallback?: T): T | undefined {
    const value = this.string(name);
    if (value === undefined) return fallback;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.fail(`${name} must be one of ${values.join(', ')}.`);
    return fallback;
  }

  /** Unix seconds in the query. */
  seconds(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^\d{1,12}$/.test(value)) {
      this.fail(`${name} must be a unix timestamp in seconds.`);
      return undefined;
    }
    return Number(value);
  }

  /** A required YYYY-MM-DD date as an epoch day. */
  date(name: string): number | undefined {
    const value = this.requiredString(name);
    if (value === '') return undefined;
    const day = parseEpochDay(value);
    if (day === undefined) this.fail(`${name} must be a date in the format YYYY-MM-DD.`);
    return day;
  }

  /** A comma-joined list of ids. */
  idList(name: string, max: number): string[] {
    const ids = this.requiredString(name)
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    if (ids.length === 0) this.fail(`${name} is required.`);
    else if (ids.length > max) this.fail(`${name} accepts at most ${max} ids.`);
    else if (ids.some((id) => !/^\d{1,24}$/.test(id))) this.fail(`${name} must hold numeric ids.`);
    return ids;
  }

  bodyHas(name: string): boolean {
    const value = this.body[name];
    return value !== undefined && value !== null;
  }

  bodyString(name: string): string | undefined {
    if (!this.bodyHas(name)) return undefined;
    const value = this.body[name];
    if (typeof value === 'string') return value;
    this.fail(`${name} must be a string.`);
    return undefined;
  }

  requiredBodyString(name: string): string {
    const value = this.bodyString(name);
    if (value === undefined || value === '') this.fail(`${name} is required.`);
    return value ?? '';
  }

  bodyEnum<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.bodyString(name);
    if (value === undefined) return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.fail(`${name} must be one of ${values.join(', ')}.`);
    return undefined;
  }

  /** Unix seconds in the body: a JSON integer, as the platform's int64 fields. */
  bodySeconds(name: string): number | undefined {
    if (!this.bodyHas(name)) return undefined;
    const value = this.body[name];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    this.fail(`${name} must be a unix timestamp in seconds (an integer).`);
    return undefined;
  }

  bodyStringArray(name: string, max: number): string[] | undefined {
    if (!this.bodyHas(name)) return undefined;
    const value = this.body[name];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.fail(`${name} must be an array of strings.`);
      return undefined;
    }
    if (value.length > max) {
      this.fail(`${name} accepts at most ${max} values.`);
      return undefined;
    }
    return value as string[];
  }

  bodyArray(name: string): unknown[] | undefined {
    if (!this.bodyHas(name)) return undefined;
    const value = this.body[name];
    if (Array.isArray(value)) return value;
    this.fail(`${name} must be an array.`);
    return undefined;
  }
}
