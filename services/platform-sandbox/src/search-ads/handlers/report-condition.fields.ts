import { METRIC_FIELDS } from './report-metrics.view';

/** The condition operators of the v5 selector. */
export const OPERATORS = [
  'EQUALS',
  'IN',
  'CONTAINS',
  'CONTAINS_ANY',
  'CONTAINS_ALL',
  'STARTSWITH',
  'LESS_THAN',
  'GREATER_THAN',
  'BETWEEN',
] as const;
export type Operator = (typeof OPERATORS)[number];

/**
 * What a field holds decides what can be asked of it: numbers compare, text matches fragments, enums and booleans
 * only equal, lists contain.
 */
export type FieldType = 'id' | 'metric' | 'text' | 'enum' | 'list' | 'boolean';

export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, readonly Operator[]>> = {
  id: ['EQUALS', 'IN', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  metric: ['EQUALS', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  text: ['EQUALS', 'IN', 'CONTAINS', 'STARTSWITH'],
  enum: ['EQUALS', 'IN'],
  list: ['CONTAINS', 'CONTAINS_ANY', 'CONTAINS_ALL'],
  boolean: ['EQUALS'],
};

/** How many values an operator takes: one to compare with, two bounds, or a non-empty set. */
export function valueCountProblem(operator: Operator, count: number): string | undefined {
  if (operator === 'BETWEEN') return count === 2 ? undefined : 'BETWEEN takes exactly two values, low and high';
  if (operator === 'IN' || operator === 'CONTAINS_ANY' || operator === 'CONTAINS_ALL') {
    return count >= 1 ? undefined : `${operator} takes at least one value`;
  }
  return count === 1 ? undefined : `${operator} takes exactly one value`;
}

export interface ConditionField {
  type: FieldType;
  /** The only values the field can hold (enums, and the items of an enum list). */
  allowed?: readonly string[];
  /** The form of a value otherwise. */
  pattern?: RegExp;
}

const ID = /^\d{1,19}$/;
const DECIMAL = /^-?\d{1,15}(\.\d{1,6})?$/;
const COUNTRY = /^[A-Z]{2}$/;
export const SUPPLY_SOURCES = [
  'APPSTORE_SEARCH_RESULTS',
  'APPSTORE_SEARCH_TAB',
  'APPSTORE_TODAY_TAB',
  'APPSTORE_PRODUCT_PAGES_BROWSE',
] as const;

export const CONDITION_FIELDS: Readonly<Record<string, ConditionField>> = {
  campaignId: { type: 'id', pattern: ID },
  adamId: { type: 'id', pattern: ID },
  campaignName: { type: 'text' },
  campaignStatus: { type: 'enum', allowed: ['ENABLED', 'PAUSED'] },
  servingStatus: { type: 'enum', allowed: ['RUNNING', 'NOT_RUNNING'] },
  displayStatus: { type: 'enum', allowed: ['RUNNING', 'ON_HOLD', 'PAUSED', 'DELETED'] },
  adChannelType: { type: 'enum', allowed: ['SEARCH', 'DISPLAY'] },
  countriesOrRegions: { type: 'list', pattern: COUNTRY },
  supplySources: { type: 'list', allowed: SUPPLY_SOURCES },
  deleted: { type: 'boolean', allowed: ['true', 'false'] },
  ...Object.fromEntries(METRIC_FIELDS.map((field) => [field, { type: 'metric', pattern: DECIMAL }])),
};

export function isConditionField(field: unknown): field is string {
  return typeof field === 'string' && Object.hasOwn(CONDITION_FIELDS, field);
}

/** Why a value cannot be one of the field's, or undefined when it can. */
export function valueProblem(field: ConditionField, value: string): string | undefined {
  if (field.allowed && !field.allowed.includes(value)) return `${value} is not one of ${field.allowed.join(', ')}`;
  if (field.pattern && !field.pattern.test(value)) {
    const form = field.type === 'id' ? 'an id (digits)' : field.type === 'metric' ? 'a number' : 'a country code';
    return `${value} is not ${form}`;
  }
  return undefined;
}
