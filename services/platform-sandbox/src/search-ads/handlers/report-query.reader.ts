import { invalidValue, isResult, type SearchAdsResult } from '../envelope';
import { parseIsoDay, readPaging, type Paging } from '../params.reader';
import {
  CONDITION_FIELDS,
  isConditionField,
  OPERATORS,
  OPERATORS_BY_TYPE,
  valueCountProblem,
  valueProblem,
  type Operator,
} from './report-condition.fields';
import type { Condition } from './report-condition.matcher';
import { GROUP_BY_DIMENSIONS, type Dimension } from './report-dimension.splitter';
import { METRIC_FIELDS } from './report-metrics.view';

export type Granularity = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
const GRANULARITIES: readonly Granularity[] = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY'];
/** Longest date range per granularity (ours, close to the platform's documented limits); none: 366 days. */
const MAX_DAYS: Record<Granularity | 'NONE', number> = { HOURLY: 7, DAILY: 90, WEEKLY: 365, MONTHLY: 730, NONE: 366 };
export const ORDER_FIELDS: readonly string[] = [...METRIC_FIELDS, 'campaignId', 'campaignName'];
const MAX_CONDITIONS = 20;
const MAX_VALUES = 1000;
const MAX_VALUE_LENGTH = 256;
const MAX_ORDER_BY = 5;

export interface OrderBy {
  field: string;
  sortOrder: 'ASCENDING' | 'DESCENDING';
}

export interface ReportQuery {
  startDay: number;
  endDay: number;
  granularity: Granularity | undefined;
  conditions: Condition[];
  orderBy: OrderBy[];
  paging: Paging;
  groupBy: Dimension | undefined;
  rowTotals: boolean;
  grandTotals: boolean;
  noMetricRows: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first key of an object outside `known`: the platform refuses attributes it does not know. */
function unknownKey(value: Record<string, unknown>, known: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !known.includes(key));
}

function readFlag(body: Record<string, unknown>, name: string): boolean | SearchAdsResult {
  const value = body[name];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') return invalidValue(name, `${name} must be true or false`);
  return value;
}

function readGroupBy(groupBy: unknown): Dimension | undefined | SearchAdsResult {
  if (groupBy === undefined) return undefined;
  const known = (item: unknown): boolean => GROUP_BY_DIMENSIONS.includes(item as Dimension);
  if (!Array.isArray(groupBy) || groupBy.length > 1 || !groupBy.every(known)) {
    return invalidValue('groupBy', `groupBy takes at most one of ${GROUP_BY_DIMENSIONS.join(', ')}`);
  }
  return groupBy[0] as Dimension | undefined;
}

/** One condition: a known field, an operator its type takes, as many values as the operator takes, each valid. */
function readCondition(condition: unknown, at: string): Condition | SearchAdsResult {
  if (!isObject(condition)) return invalidValue(at, 'a condition must be an object');
  const extra = unknownKey(condition, ['field', 'operator', 'values']);
  if (extra !== undefined) return invalidValue(`${at}.${extra}`, `unknown attribute ${extra}`);
  if (!isConditionField(condition.field)) {
    return invalidValue(`${at}.field`, `unknown condition field ${String(condition.field)}`);
  }
  const field = CONDITION_FIELDS[condition.field]!;
  if (!OPERATORS.includes(condition.operator as Operator)) {
    return invalidValue(`${at}.operator`, `unknown operator ${String(condition.operator)}`);
  }
  const operator = condition.operator as Operator;
  if (!OPERATORS_BY_TYPE[field.type].includes(operator)) {
    return invalidValue(`${at}.operator`, `${operator} does not apply to ${condition.field}`);
  }
  const values = condition.values;
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string' || v.length > MAX_VALUE_LENGTH)) {
    return invalidValue(`${at}.values`, `values must be a list of strings of at most ${MAX_VALUE_LENGTH} characters`);
  }
  if (values.length > MAX_VALUES) return invalidValue(`${at}.values`, `values takes at most ${MAX_VALUES} items`);
  const countProblem = valueCountProblem(operator, values.length);
  if (countProblem) return invalidValue(`${at}.values`, countProblem);
  for (const value of values as string[]) {
    const problem = valueProblem(field, value);
    if (problem) return invalidValue(`${at}.values`, problem);
  }
  return { field: condition.field, type: field.type, operator, values: values as string[] };
}

function readConditions(conditions: unknown): Condition[] | SearchAdsResult {
  if (conditions === undefined) return [];
  if (!Array.isArray(conditions)) return invalidValue('selector.conditions', 'conditions must be a list');
  if (conditions.length > MAX_CONDITIONS) {
    return invalidValue('selector.conditions', `conditions takes at most ${MAX_CONDITIONS} items`);
  }
  const read: Condition[] = [];
  for (const [index, condition] of conditions.entries()) {
    const one = readCondition(condition, `selector.conditions[${index}]`);
    if (isResult(one)) return one;
    read.push(one);
  }
  return read;
}

function readOrderBy(orderBy: unknown): OrderBy[] | SearchAdsResult {
  if (orderBy === undefined) return [];
  if (!Array.isArray(orderBy)) return invalidValue('selector.orderBy', 'orderBy must be a list');
  if (orderBy.length > MAX_ORDER_BY) {
    return invalidValue('selector.orderBy', `orderBy takes at most ${MAX_ORDER_BY} items`);
  }
  const read: OrderBy[] = [];
  for (const [index, order] of orderBy.entries()) {
    const at = `selector.orderBy[${index}]`;
    if (!isObject(order)) return invalidValue(at, 'an orderBy entry must be an object');
    const extra = unknownKey(order, ['field', 'sortOrder']);
    if (extra !== undefined) return invalidValue(`${at}.${extra}`, `unknown attribute ${extra}`);
    if (typeof order.field !== 'string' || !ORDER_FIELDS.includes(order.field)) {
      return invalidValue(`${at}.field`, `unknown orderBy field ${String(order.field)}`);
    }
    if (order.sortOrder !== 'ASCENDING' && order.sortOrder !== 'DESCENDING') {
      return invalidValue(`${at}.sortOrder`, 'sortOrder must be ASCENDING or DESCENDING');
    }
    read.push({ field: order.field, sortOrder: order.sortOrder });
  }
  return read;
}

/** The report query, validated as the platform does: dates, range, selector, groupBy and flags. */
export function readReportQuery(body: unknown, todayDay: number): ReportQuery | SearchAdsResult {
  if (!isObject(body)) return invalidValue('', 'The report query must be a JSON object');
  const startDay = parseIsoDay(body.startTime);
  if (startDay === undefined) return invalidValue('startTime', 'startTime must be a date as YYYY-MM-DD');
  const endDay = parseIsoDay(body.endTime);
  if (endDay === undefined) return invalidValue('endTime', 'endTime must be a date as YYYY-MM-DD');
  if (endDay < startDay) return invalidValue('endTime', 'endTime must not be before startTime');
  if (startDay > todayDay) return invalidValue('startTime', 'startTime must not be in the future');
  let granularity: Granularity | undefined;
  if (body.granularity !== undefined) {
    if (!GRANULARITIES.includes(body.granularity as Granularity)) {
      return invalidValue('granularity', `granularity must be one of ${GRANULARITIES.join(', ')}`);
    }
    granularity = body.granularity as Granularity;
  }
  if (endDay - startDay + 1 > MAX_DAYS[granularity ?? 'NONE']) {
    return invalidValue('endTime', `the date range is limited to ${MAX_DAYS[granularity ?? 'NONE']} days`);
  }
  if (body.timeZone !== undefined && body.timeZone !== 'UTC' && body.timeZone !== 'ORTZ') {
    return invalidValue('timeZone', 'timeZone must be UTC or ORTZ');
  }
  const flags: Record<string, boolean> = {};
  for (const name of ['returnRowTotals', 'returnGrandTotals', 'returnRecordsWithNoMetrics']) {
    const flag = readFlag(body, name);
    if (isResult(flag)) return flag;
    flags[name] = flag;
  }
  const groupBy = readGroupBy(body.groupBy);
  if (isResult(groupBy)) return groupBy;
  const selector = body.selector;
  if (!isObject(selector)) return invalidValue('selector', 'selector is required');
  if (!isObject(selector.pagination)) return invalidValue('selector.pagination', 'selector.pagination is required');
  const paging = readPaging(selector.pagination, 'selector.pagination.', { offset: 0, limit: 1000 });
  if (isResult(paging)) return paging;
  const conditions = readConditions(selector.conditions);
  if (isResult(conditions)) return conditions;
  const orderBy = readOrderBy(selector.orderBy);
  if (isResult(orderBy)) return orderBy;
  return {
    startDay,
    endDay,
    granularity,
    conditions,
    orderBy,
    paging,
    groupBy,
    rowTotals: flags.returnRowTotals as boolean,
    grandTotals: flags.returnGrandTotals as boolean,
    noMetricRows: flags.returnRecordsWithNoMetrics as boolean,
  };
}
