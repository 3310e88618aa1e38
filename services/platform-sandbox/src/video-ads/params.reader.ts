import { parseEpochDay } from './data/calendar';
import { paramError, type ApiResult } from './envelope';

/** Query values are strings; body values are whatever JSON held (arrays may be real arrays there). */
export type ParamMap = Map<string, unknown>;

/**
 * Gathers the parameters of one call. Query and JSON body are merged (the platform accepts a body on GET);
 * a name given twice, in the query or across query and body, is refused rather than guessed at, because
 * arrays are ONE parameter holding a JSON string (docs/providers.md, video-ads "Parameters").
 */
export function collectParams(query: string, body: string): ParamMap | ApiResult {
  const params: ParamMap = new Map();
  if (query !== '') {
    for (const [name, value] of new URLSearchParams(query)) {
      if (params.has(name)) {
        return paramError(
          `${name}: Parameter is repeated in the query string. Pass arrays and objects as ONE parameter holding a JSON string.`,
        );
      }
      params.set(name, value);
    }
  }
  if (body.trim() === '') return params;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return paramError('Request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return paramError('Request body must be a JSON object.');
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (params.has(name)) {
      return paramError(`${name}: Parameter is given both in the query string and in the body.`);
    }
    params.set(name, value);
  }
  return params;
}

export interface PageParams {
  page: number;
  pageSize: number;
}

const MISSING = 'Missing data for required field.';

/**
 * Typed access to parameters with marshmallow-style messages like the platform's ("page_size: Must be ...").
 * The first problem is kept and later reads become no-ops for error purposes, so a parser reads everything
 * it needs and checks `error` once.
 */
export class ParamReader {
  error: ApiResult | undefined;

  constructor(private readonly params: ParamMap) {}

  fail(message: string): void {
    if (!this.error) this.error = paramError(message);
  }

  has(name: string): boolean {
    const value = this.params.get(name);
    return value !== undefined && value !== null && value !== '';
  }

  raw(name: string): unknown {
    return this.params.get(name);
  }

  optionalString(name: string): string | undefined {
    if (!this.has(name)) return undefined;
    const value = this.params.get(name);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    this.fail(`${name}: Not a valid string.`);
    return undefined;
  }

  string(name: string): string {
    if (!this.has(name)) {
      this.fail(`${name}: ${MISSING}`);
      return '';
    }
    return this.optionalString(name) ?? '';
  }

  optionalNumber(name: string): number | undefined {
    if (!this.has(name)) return undefined;
    const value = this.params.get(name);
    const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
    if (Number.isFinite(parsed)) return parsed;
    this.fail(`${name}: Not a valid number.`);
    return undefined;
  }

  /** An id made of digits, as every platform id is. */
  id(name: string): string {
    const value = this.string(name);
    if (value !== '' && !/^\d{1,24}$/.test(value)) this.fail(`${name}: Not a valid id.`);
    return value;
  }

  enumOf<T extends string>(name: string, values: readonly T[], fallback?: T): T | undefined {
    const value = this.optionalString(name);
    if (value === undefined) return fallback;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.fail(`${name}: Must be one of: ${values.join(', ')}.`);
    return fallback;
  }

  requiredEnum<T extends string>(name: string, values: readonly T[]): T | undefined {
    if (!this.has(name)) {
      this.fail(`${name}: ${MISSING}`);
      return undefined;
    }
    return this.enumOf(name, values);
  }

  int(name: string, fallback: number, min: number, max?: number): number {
    if (!this.has(name)) return fallback;
    const value = this.params.get(name);
    let parsed: number | undefined;
    if (typeof value === 'number' && Number.isInteger(value)) parsed = value;
    if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) parsed = Number(value);
    if (parsed === undefined) {
      this.fail(`${name}: Not a valid integer.`);
      return fallback;
    }
    if (parsed < min || (max !== undefined && parsed > max)) {
      this.fail(
        max === undefined
          ? `${name}: Must be greater than or equal to ${min}.`
          : `${name}: Must be greater than or equal to ${min} and less than or equal to ${max}.`,
      );
      return fallback;
    }
    return parsed;
  }

  /** page >= 1 (default 1), page_size 1..1000 (default 10): docs/providers.md "Paging". */
  page(): PageParams {
    return { page: this.int('page', 1, 1), pageSize: this.int('page_size', 10, 1, 1000) };
  }

  private json(name: string): unknown {
    const value = this.params.get(name);
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      this.fail(`${name}: Not a valid JSON string. Pass it as ONE parameter holding JSON.`);
      return undefined;
    }
  }

  optionalStringArray(name: string, limits: { min?: number; max?: number } = {}): string[] | undefined {
    if (!this.has(name)) return undefined;
    const parsed = this.json(name);
    if (parsed === undefined) return undefined;
    if (!Array.isArray(parsed)) {
      this.fail(`${name}: Not a valid list.`);
      return undefined;
    }
    const index = parsed.findIndex((item) => typeof item !== 'string');
    if (index !== -1) {
      this.fail(`${name}.${index}: Not a valid string.`);
      return undefined;
    }
    if (limits.min !== undefined && parsed.length < limits.min) {
      this.fail(`${name}: Length must be greater than or equal to ${limits.min}.`);
      return undefined;
    }
    if (limits.max !== undefined && parsed.length > limits.max) {
      this.fail(`${name}: Length must be less than or equal to ${limits.max}.`);
      return undefined;
    }
    return parsed as string[];
  }

  stringArray(name: string, limits: { min?: number; max?: number } = {}): string[] {
    if (!this.has(name)) {
      this.fail(`${name}: ${MISSING}`);
      return [];
    }
    return this.optionalStringArray(name, { min: 1, ...limits }) ?? [];
  }

  optionalObject(name: string): Record<string, unknown> | undefined {
    if (!this.has(name)) return undefined;
    const parsed = this.json(name);
    if (parsed === undefined) return undefined;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      this.fail(`${name}: Not a valid mapping type.`);
      return undefined;
    }
    return parsed as Record<string, unknown>;
  }

  optionalArray(name: string): unknown[] | undefined {
    if (!this.has(name)) return undefined;
    const parsed = this.json(name);
    if (parsed === undefined) return undefined;
    if (!Array.isArray(parsed)) {
      this.fail(`${name}: Not a valid list.`);
      return undefined;
    }
    return parsed;
  }

  /** A required YYYY-MM-DD date as an epoch day. */
  date(name: string): number | undefined {
    const text = this.string(name);
    if (text === '') return undefined;
    const day = parseEpochDay(text);
    if (day === undefined) this.fail(`${name}: Not a valid date, the format is YYYY-MM-DD.`);
    return day;
  }

  /** `fields`: a subset of the record's field names; undefined means all of them. */
  fields(known: ReadonlySet<string>): string[] | undefined {
    const fields = this.optionalStringArray('fields', { min: 1 });
    if (!fields) return undefined;
    const unknown = fields.filter((field) => !known.has(field));
    if (unknown.length > 0) this.fail(`fields: Invalid field(s): ${unknown.join(', ')}.`);
    return fields;
  }
}

/** Reads a filtering object with the same first-problem-wins rule; keys not declared are refused. */
export class FilterReader {
  constructor(
    private readonly reader: ParamReader,
    private readonly filtering: Record<string, unknown>,
    allowed: readonly string[],
    private readonly prefix = 'filtering',
  ) {
    const unknown = Object.keys(filtering).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) reader.fail(`${prefix}.${unknown[0]}: Unknown field.`);
  }

  ids(name: string, max = 100): Set<string> | undefined {
    const value = this.filtering[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' && typeof item !== 'number')) {
      this.reader.fail(`${this.prefix}.${name}: Not a valid list of strings.`);
      return undefined;
    }
    if (value.length > max) {
      this.reader.fail(`${this.prefix}.${name}: Length must be less than or equal to ${max}.`);
      return undefined;
    }
    return new Set(value.map(String));
  }

  text(name: string): string | undefined {
    const value = this.filtering[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.reader.fail(`${this.prefix}.${name}: Not a valid string.`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value)) {
      this.reader.fail(`${this.prefix}.${name}: Must be one of: ${values.join(', ')}.`);
      return undefined;
    }
    return value as T;
  }

  someOf<T extends string>(name: string, values: readonly T[]): Set<T> | undefined {
    const set = this.ids(name);
    if (!set) return undefined;
    const bad = [...set].find((value) => !(values as readonly string[]).includes(value));
    if (bad !== undefined) {
      this.reader.fail(`${this.prefix}.${name}: Must be one of: ${values.join(', ')}.`);
      return undefined;
    }
    return set as Set<T>;
  }
}
