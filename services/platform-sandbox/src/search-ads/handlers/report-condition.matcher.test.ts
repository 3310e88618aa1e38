import { meetsCondition, type Condition, type FieldValue } from './report-condition.matcher';
import { splitByWeight } from './report-dimension.splitter';

const condition = (type: Condition['type'], operator: Condition['operator'], values: string[]): Condition => ({
  field: 'f',
  type,
  operator,
  values,
});

describe('report condition operators', () => {
  it.each<[Condition['type'], Condition['operator'], string[], FieldValue, boolean]>([
    ['id', 'EQUALS', ['1234567890'], 1234567890, true],
    ['id', 'EQUALS', ['1234567890'], 1234567891, false],
    ['id', 'IN', ['5', '1234567890'], 1234567890, true],
    ['id', 'IN', ['5', '6'], 1234567890, false],
    ['id', 'LESS_THAN', ['100'], 99, true],
    ['id', 'LESS_THAN', ['100'], 100, false],
    ['id', 'GREATER_THAN', ['100'], 101, true],
    ['id', 'GREATER_THAN', ['100'], 100, false],
    ['id', 'BETWEEN', ['10', '20'], 10, true],
    ['id', 'BETWEEN', ['10', '20'], 20, true],
    ['id', 'BETWEEN', ['10', '20'], 21, false],
    ['id', 'BETWEEN', ['20', '10'], 15, false],
    ['metric', 'EQUALS', ['12.30'], 12.3, true],
    ['metric', 'GREATER_THAN', ['0.05'], 0.0501, true],
    ['metric', 'LESS_THAN', ['-1'], 0, false],
    ['metric', 'BETWEEN', ['0', '0.5'], 0.25, true],
    ['text', 'EQUALS', ['Trail Notes'], 'Trail Notes', true],
    ['text', 'EQUALS', ['Trail'], 'Trail Notes', false],
    ['text', 'IN', ['A', 'Trail Notes'], 'Trail Notes', true],
    ['text', 'CONTAINS', ['Notes'], 'Trail Notes - Brand', true],
    ['text', 'CONTAINS', ['notes'], 'Trail Notes - Brand', false],
    ['text', 'STARTSWITH', ['Trail'], 'Trail Notes', true],
    ['text', 'STARTSWITH', ['Notes'], 'Trail Notes', false],
    ['enum', 'EQUALS', ['ENABLED'], 'ENABLED', true],
    ['enum', 'EQUALS', ['PAUSED'], 'ENABLED', false],
    ['enum', 'IN', ['PAUSED', 'ENABLED'], 'ENABLED', true],
    ['enum', 'STARTSWITH', ['EN'], 'ENABLED', false],
    ['list', 'CONTAINS', ['CA'], ['US', 'CA'], true],
    ['list', 'CONTAINS', ['MX'], ['US', 'CA'], false],
    ['list', 'CONTAINS_ANY', ['MX', 'CA'], ['US', 'CA'], true],
    ['list', 'CONTAINS_ANY', ['MX', 'GB'], ['US', 'CA'], false],
    ['list', 'CONTAINS_ALL', ['US', 'CA'], ['US', 'CA', 'MX'], true],
    ['list', 'CONTAINS_ALL', ['US', 'GB'], ['US', 'CA', 'MX'], false],
    ['list', 'EQUALS', ['US'], ['US'], false],
    ['boolean', 'EQUALS', ['false'], false, true],
    ['boolean', 'EQUALS', ['true'], false, false],
  ])('%s %s %j on %j is %s', (type, operator, values, actual, expected) => {
    expect(meetsCondition(actual, condition(type, operator, values))).toBe(expected);
  });
});

describe('splitting metrics by weight', () => {
  it('keeps every part whole and the parts adding up to the value', () => {
    for (const value of [0, 1, 7, 999, 123_457]) {
      const parts = splitByWeight(value, [3, 1, 7, 2]);
      expect(parts.every(Number.isInteger)).toBe(true);
      expect(parts.reduce((sum, part) => sum + part, 0)).toBe(value);
    }
  });
});
