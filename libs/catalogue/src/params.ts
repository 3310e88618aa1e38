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
      return z.union([z.array(z.union([z.string(), z.number()])), z.string()]);
    case 'string':
      return z.union([z.string(), z.number()]);
  }
}

/**
 * Turns values into the platform's wire form: one query parameter per name, arrays and objects as JSON strings,
 * except lists the endpoint takes comma-joined (csv). Parameters the service owns for the endpoint's provider
 * are dropped.
 */
export function encodeParams(
  values: Record<string, ParamValue | undefined>,
  endpoint?: EndpointSpec,
): Record<string, string> {
  const owned = endpoint ? ownedParamsOf(endpoint.provider) : NONE;
  const csv = new Set(endpoint?.params.filter((param) => param.type === 'csv').map((param) => param.name));
  const encoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || owned.has(name.toLowerCase())) continue;
    if (csv.has(name) && Array.isArray(value)) encoded[name] = value.map(String).join(',');
    else encoded[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return encoded;
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
export function validateParams(endpoint: EndpointSpec, encoded: Record<string, string>): string[] {
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
    if (raw === undefined || raw === '') {
      if (required) problems.push(`${param.name} is required`);
      continue;
    }
    problems.push(...checkValue(param, raw));
  }
  const start = encoded['start_date'];
  const end = encoded['end_date'];
  if (start && end && DATE.test(start) && DATE.test(end) && end < start) problems.push('end_date is before start_date');
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
    case 'string':
      return [];
  }
}

function checkJsonArray(param: ParameterSpec, raw: string): string[] {
  const parsed = parseJson(raw);
  if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string')) {
    return [`${param.name} must be a JSON array of strings in one parameter, e.g. ${JSON.stringify(param.example)}`];
  }
  const problems: string[] = [];
  if (param.minItems !== undefined && parsed.length < param.minItems)
    problems.push(`${param.name} needs at least ${param.minItems} item(s)`);
  if (param.maxItems !== undefined && parsed.length > param.maxItems)
    problems.push(`${param.name} takes at most ${param.maxItems} item(s)`);
  if (param.values) {
    const unknown = parsed.filter((item) => !param.values!.includes(item as string));
    if (unknown.length > 0) problems.push(`${param.name} does not allow ${unknown.join(', ')}`);
  }
  return problems;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
