import { z } from 'zod';
import type { EndpointSpec, ParameterSpec } from './types';

/** Set by the service from the connection, never by the caller (spec 4.2). */
export const SERVICE_OWNED_PARAMS: ReadonlySet<string> = new Set(['app_id', 'secret', 'access_token']);

/** A caller's value for one parameter, as an assistant would give it: JSON-string params may be real arrays. */
export type ParamValue = string | number | boolean | readonly unknown[] | Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

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
      return z.string().regex(DATE, `${param.name} must be ${param.format ?? 'YYYY-MM-DD'}`);
    case 'json-array':
      return z.union([z.array(z.string()), z.string()]);
    case 'json-object':
      return z.union([z.record(z.string(), z.unknown()), z.string()]);
    case 'string':
      return z.union([z.string(), z.number()]);
  }
}

/** Turns values into the platform's wire form: one query parameter per name, arrays and objects as JSON strings. */
export function encodeParams(values: Record<string, ParamValue | undefined>): Record<string, string> {
  const encoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || SERVICE_OWNED_PARAMS.has(name)) continue;
    encoded[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return encoded;
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
      return DATE.test(raw) && !Number.isNaN(Date.parse(`${raw}T00:00:00Z`))
        ? []
        : [`${param.name} must be a date ${param.format ?? 'YYYY-MM-DD'}`];
    case 'json-array':
      return checkJsonArray(param, raw);
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
