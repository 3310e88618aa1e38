import type { FieldType, Operator } from './report-condition.fields';

/** A row's value of a condition field: numbers for ids and metrics, strings, lists of strings, booleans. */
export type FieldValue = number | string | boolean | readonly string[];

export interface Condition {
  field: string;
  type: FieldType;
  operator: Operator;
  /** Checked by the query reader: the count the operator takes, each of the field's form. */
  values: readonly string[];
}

function compareNumber(actual: number, operator: Operator, values: readonly number[]): boolean {
  const [first = Number.NaN, second = Number.NaN] = values;
  switch (operator) {
    case 'EQUALS':
      return actual === first;
    case 'IN':
      return values.includes(actual);
    case 'LESS_THAN':
      return actual < first;
    case 'GREATER_THAN':
      return actual > first;
    case 'BETWEEN':
      // Both bounds are inside the range; a low bound above the high one matches nothing.
      return first <= actual && actual <= second;
    default:
      return false;
  }
}

function compareText(actual: string, operator: Operator, values: readonly string[]): boolean {
  const first = values[0] ?? '';
  switch (operator) {
    case 'EQUALS':
      return actual === first;
    case 'IN':
      return values.includes(actual);
    case 'CONTAINS':
      return actual.includes(first);
    case 'STARTSWITH':
      return actual.startsWith(first);
    default:
      return false;
  }
}

function compareList(actual: readonly string[], operator: Operator, values: readonly string[]): boolean {
  switch (operator) {
    case 'CONTAINS':
      return actual.includes(values[0] ?? '');
    case 'CONTAINS_ANY':
      return values.some((value) => actual.includes(value));
    case 'CONTAINS_ALL':
      return values.every((value) => actual.includes(value));
    default:
      return false;
  }
}

/** Whether a row's value meets the condition; an operator the field's type does not take matches nothing. */
export function meetsCondition(actual: FieldValue, condition: Condition): boolean {
  const { operator, values } = condition;
  switch (condition.type) {
    case 'id':
    case 'metric':
      return typeof actual === 'number' && compareNumber(actual, operator, values.map(Number));
    case 'text':
      return typeof actual === 'string' && compareText(actual, operator, values);
    case 'enum':
      return (
        typeof actual === 'string' &&
        (operator === 'EQUALS' || operator === 'IN') &&
        compareText(actual, operator, values)
      );
    case 'list':
      return Array.isArray(actual) && compareList(actual, operator, values);
    case 'boolean':
      return operator === 'EQUALS' && String(actual) === values[0];
  }
}
