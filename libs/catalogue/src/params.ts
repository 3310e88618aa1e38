import { z } from 'zod';
import { providerSpec } from './registry';
import type { EndpointSpec, ParameterSpec, ProviderId } from './types';

const NONE: ReadonlySet<string> = new Set();
const OWNED: ReadonlyMap<ProviderId, ReadonlySet<string>> = new Map();

/**
 * Parameters the service sets for this provider from the connection and its app, never the caller (spec 4.2
 * for video-ads; docs/providers.md for the others). Lower-case names.
 */
export function ownedParamsOf(provider: ProviderId): ReadonlySet<string> {
  let owned = OWNED.get(provider);
  if (owned === undefined) {
    owned = new Set(providerSpec(provider)?.ownedParams.map((name) => name.toLowerCase()) ?? NONE);
    (OWNED as Map<ProviderId, ReadonlySet<string>>).set(provider, owned);
  }
  return owned;
}

/** A caller's value for one parameter, as an assistant would give it: JSON-string params may be real arrays. */
export type ParamValue = string | number | boolean | readonly unknown[] | Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The date formats platforms use, and how each reads as an ISO date (YYYY-MM-DD). */
const DATE_FORMATS: Record<string, { pattern: RegExp; toIso: (raw: string) => string }> = {
  'YYYY-MM-DD': { pattern: DATE, toIso: (raw) => raw },
  'DD-MM-YYYY': {
    pattern: /^\d{2}-\d{2}-\d{4}$/,
    toIso: (raw) => `${raw.slice(6)}-${raw.slice(3, 5)}-${raw.slice(0, 2)}`,
  },
  YYYYMMDD: { pattern: /^\d{8}$/, toIso: (raw) => `${raw.slice(0, 4)}-${raw.slice(4, 6)}-${raw.slice(6)}` },
};

function dateFormatOf(param: ParameterSpec) {
  return DATE_FORMATS[param.format ?? 'YYYY-MM-DD'] ?? DATE_FORMATS['YYYY-MM-DD']!;
}

/** A real calendar day in the parameter's format. */
function isValidDate(param: ParameterSpec, raw: string): boolean {
  const format = dateFormatOf(param);
  if (!format.pattern.test(raw)) return false;
  const iso = format.toIso(raw);
  const parsed = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === iso;
}

/**
 * zod schema of one endpoint's parameters as an assistant supplies them: arrays and objects may be given
 * as values or as their JSON strings; integers as numbers or digit strings.
 */
export function paramsInputSchema(endpoint: EndpointSpec) {
  const shape: Record<string, z.ZodType> = {};
  for (const param of endpoint.params) {
    const value = paramValueSchema(param).describe(param.description);
    shape[param.name] = param.required ? value : value.optional();
  }
  return z.object(shape).strict();
}

function paramValueSchema(param: ParameterSpec): z.ZodType {
  switch (param.type) {
    case 'integer':
      return z.union([z.number().int(), z.string().regex(/^\d+$/)]);
    case 'enum':
      return z.enum(param.values as [string, ...string[]]);
    case 'date':
      return z.string().regex(dateFormatOf(param).pattern, `${param.name} must be ${param.format ?? 'YYYY-MM-DD'}`);
    case 'json-array':
      return z.union([z.array(z.string()), z.string()]);
    case 'json-object':
      return z.union([z.record(z.string(), z.unknown()), z.string()]);
    case 'csv':
    case 'repeated':
      return z.union([z.array(z.union([z.string(), z.number()])), z.string()]);
    case 'string':
      return z.union([z.string(), z.number()]);
  }
}

/**
 * Parameters in the platform's wire form: one string per name, or the values of a parameter the platform takes
 * repeated (type `repeated`), one query parameter each.
 */
export type WireParams = Record<string, string | string[]>;

/**
 * Turns values into the platform's wire form: one query parameter per name, arrays and objects as JSON strings,
 * except lists the endpoint takes comma-joined (csv) or repeated (one string per value; a single value as a list of
 * one). Parameters the service owns for the endpoint's provider are dropped.
 */
export function encodeParams(values: Record<string, ParamValue | undefined>, endpoint?: EndpointSpec): WireParams {
  const owned = endpoint ? ownedParamsOf(endpoint.provider) : NONE;
  const typeOf = new Map(endpoint?.params.map((param) => [param.name, param.type]));
  const encoded: WireParams = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || owned.has(name.toLowerCase())) continue;
    const type = typeOf.get(name);
    if (type === 'repeated') encoded[name] = Array.isArray(value) ? value.map(String) : [String(value)];
    else if (type === 'csv' && Array.isArray(value)) encoded[name] = value.map(String).join(',');
    else encoded[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return encoded;
}

/** The query string of wire-form parameters, in their order; a repeated parameter once per value. */
export function queryStringOf(encoded: WireParams): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(encoded)) {
    const key = encodeURIComponent(name);
    for (const item of typeof value === 'string' ? [value] : value) pairs.push(`${key}=${encodeURIComponent(item)}`);
  }
  return pairs.join('&');
}

/** Checks a JSON body against the endpoint: only where the endpoint takes one, an object, of its schema. */
export function validateBody(endpoint: EndpointSpec, body: unknown): string[] {
  if (endpoint.body === undefined) return [`${endpoint.path} takes no body`];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['the body must be one JSON object'];
  if (endpoint.body.schema === undefined) return [];
  const result = endpoint.body.schema.safeParse(body);
  if (result.success) return [];
  return result.error.issues.map((issue) =>
    issue.path.length > 0 ? `body.${issue.path.join('.')}: ${issue.message}` : `body: ${issue.message}`,
  );
}

/**
 * Checks encoded (wire-form) parameters against the catalogue: required, required-when, enums, formats,
 * JSON-string shape, item values and limits. Returns every problem, empty when valid.
 */
export function validateParams(endpoint: EndpointSpec, encoded: WireParams): string[] {
  const problems: string[] = [];
  const known = new Set(endpoint.params.map((param) => param.name));
  for (const name of Object.keys(encoded)) {
    if (!known.has(name)) problems.push(`${name} is not a parameter of ${endpoint.path}`);
  }
  for (const param of endpoint.params) {
    const raw = encoded[param.name];
    const required =
      param.required ||
      (param.requiredWhen !== undefined && encoded[param.requiredWhen.param] === param.requiredWhen.equals);
    if (raw === undefined || raw === '' || raw.length === 0) {
      if (required) problems.push(`${param.name} is required`);
      continue;
    }
    if (typeof raw === 'string') problems.push(...checkValue(param, raw));
    else if (param.type === 'repeated') problems.push(...checkRepeated(param, raw));
    else problems.push(`${param.name} takes one value`);
  }
  const start = encoded['start_date'];
  const end = encoded['end_date'];
  if (typeof start === 'string' && typeof end === 'string' && DATE.test(start) && DATE.test(end) && end < start) {
    problems.push('end_date is before start_date');
  }
  return problems;
}

/** A parameter sent once per value: each value non-empty and allowed, their count within the limits. */
function checkRepeated(param: ParameterSpec, values: readonly string[]): string[] {
  if (values.some((value) => value === '')) return [`${param.name} must not have an empty value`];
  const hint = param.values ? `: give one of ${param.values.join(', ')} per value, several as a list` : '';
  return checkItems(param, values, hint);
}

/** The items of a list: their count within the parameter's limits, each among its allowed values. */
function checkItems(param: ParameterSpec, items: readonly string[], unknownHint = ''): string[] {
  const problems: string[] = [];
  if (param.minItems !== undefined && items.length < param.minItems)
    problems.push(`${param.name} needs at least ${param.minItems} item(s)`);
  if (param.maxItems !== undefined && items.length > param.maxItems)
    problems.push(`${param.name} takes at most ${param.maxItems} item(s)`);
  if (param.values) {
    const unknown = items.filter((item) => !param.values!.includes(item));
    if (unknown.length > 0) problems.push(`${param.name} does not allow ${unknown.join(', ')}${unknownHint}`);
  }
  return problems;
}

function checkValue(param: ParameterSpec, raw: string): string[] {
  switch (param.type) {
    case 'integer': {
      if (!/^\d+$/.test(raw)) return [`${param.name} must be an integer`];
      const value = Number(raw);
      if (param.minimum !== undefined && value < param.minimum)
        return [`${param.name} must be at least ${param.minimum}`];
      if (param.maximum !== undefined && value > param.maximum)
        return [`${param.name} must be at most ${param.maximum}`];
      return [];
    }
    case 'enum':
      return param.values?.includes(raw) ? [] : [`${param.name} must be one of ${param.values?.join(', ')}`];
    case 'date':
      return isValidDate(param, raw) ? [] : [`${param.name} must be a date ${param.format ?? 'YYYY-MM-DD'}`];
    case 'json-array':
      return checkJsonArray(param, raw);
    case 'csv': {
      const items = raw.split(',');
      if (items.some((item) => item.trim() === '')) return [`${param.name} must be comma-joined values`];
      if (param.minItems !== undefined && items.length < param.minItems)
        return [`${param.name} needs at least ${param.minItems} item(s)`];
      if (param.maxItems !== undefined && items.length > param.maxItems)
        return [`${param.name} takes at most ${param.maxItems} item(s)`];
      return [];
    }
    case 'json-object': {
      const parsed = parseJson(raw);
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? []
        : [`${param.name} must be a JSON object in one parameter`];
    }
    case 'repeated':
      return checkRepeated(param, [raw]);
    case 'string':
      return [];
  }
}

function checkJsonArray(param: ParameterSpec, raw: string): string[] {
  const parsed = parseJson(raw);
  if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string')) {
    return [`${param.name} must be a JSON array of strings in one parameter, e.g. ${JSON.stringify(param.example)}`];
  }
  return checkItems(param, parsed as string[]);
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
