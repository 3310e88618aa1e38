import { findEndpoint, validateBody, type EndpointSpec } from '@gateway/catalogue';
import { runReport } from './testing/report.runner';

/**
 * The gateway checks a report body against the catalogue's schema before forwarding it; the sandbox checks it as
 * the platform does. For every body here both must give the same verdict: a body the gateway passes that the
 * platform refuses costs the caller a call, and one the gateway refuses that the platform takes is lost.
 */
const REPORT = findEndpoint('search-ads', '/api/v5/reports/campaigns') as EndpointSpec;

const OPERATORS = [
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
type Operator = (typeof OPERATORS)[number];

/** The operators the platform takes per kind of field (the specification under test). */
const TAKES: Record<string, readonly Operator[]> = {
  id: ['EQUALS', 'IN', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  metric: ['EQUALS', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  text: ['EQUALS', 'IN', 'CONTAINS', 'STARTSWITH'],
  enum: ['EQUALS', 'IN'],
  list: ['CONTAINS', 'CONTAINS_ANY', 'CONTAINS_ALL'],
  boolean: ['EQUALS'],
};

/** Each field with its kind and two values of its own form (BETWEEN takes them as low and high). */
const FIELDS: [string, keyof typeof TAKES, [string, string]][] = [
  ['campaignId', 'id', ['1000000000', '9999999999']],
  ['adamId', 'id', ['1400000000', '1500000000']],
  ['impressions', 'metric', ['100', '5000']],
  ['ttr', 'metric', ['0.02', '0.1']],
  ['localSpend', 'metric', ['10.50', '900']],
  ['avgCPT', 'metric', ['0.5', '2.75']],
  ['campaignName', 'text', ['Trail', 'Pocket Chef']],
  ['campaignStatus', 'enum', ['ENABLED', 'PAUSED']],
  ['servingStatus', 'enum', ['RUNNING', 'NOT_RUNNING']],
  ['displayStatus', 'enum', ['RUNNING', 'ON_HOLD']],
  ['adChannelType', 'enum', ['SEARCH', 'DISPLAY']],
  ['countriesOrRegions', 'list', ['US', 'CA']],
  ['supplySources', 'list', ['APPSTORE_SEARCH_RESULTS', 'APPSTORE_TODAY_TAB']],
  ['deleted', 'boolean', ['false', 'true']],
];

const GROUP_BY = ['countryOrRegion', 'adminArea', 'locality', 'deviceClass', 'ageRange', 'gender'];
const ORDER_BY = [
  'impressions',
  'taps',
  'tapInstalls',
  'viewInstalls',
  'totalInstalls',
  'tapNewDownloads',
  'tapRedownloads',
  'viewNewDownloads',
  'viewRedownloads',
  'totalNewDownloads',
  'totalRedownloads',
  'ttr',
  'avgCPT',
  'avgCPM',
  'localSpend',
  'tapInstallCPI',
  'totalAvgCPI',
  'tapInstallRate',
  'totalInstallRate',
  'campaignId',
  'campaignName',
];

function body(selector: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    startTime: '2026-11-01',
    endTime: '2026-11-07',
    selector: { pagination: { offset: 0, limit: 50 }, ...selector },
    returnRowTotals: true,
    ...extra,
  };
}

const where = (...conditions: unknown[]) => body({ conditions });

function valuesFor(operator: Operator, [low, high]: [string, string]): string[] {
  if (operator === 'BETWEEN' || operator === 'IN' || operator === 'CONTAINS_ANY' || operator === 'CONTAINS_ALL') {
    return [low, high];
  }
  return [low];
}

type Case = [name: string, body: unknown, accepted: boolean];

const OPERATOR_CASES: Case[] = FIELDS.flatMap(([field, kind, values]) =>
  OPERATORS.map((operator): Case => [
    `${field} (${kind}) ${operator}`,
    where({ field, operator, values: valuesFor(operator, values) }),
    TAKES[kind]!.includes(operator),
  ]),
);

const EMPTY_VALUE_CASES: Case[] = FIELDS.flatMap(([field, kind]) =>
  TAKES[kind]!.map((operator): Case => [
    `${field} ${operator} with no values`,
    where({ field, operator, values: [] }),
    false,
  ]),
);

const SHAPE_CASES: Case[] = [
  ['campaignId BETWEEN with one value', where({ field: 'campaignId', operator: 'BETWEEN', values: ['1'] }), false],
  [
    'impressions BETWEEN with three values',
    where({ field: 'impressions', operator: 'BETWEEN', values: ['1', '2', '3'] }),
    false,
  ],
  [
    'campaignName EQUALS with two values',
    where({ field: 'campaignName', operator: 'EQUALS', values: ['a', 'b'] }),
    false,
  ],
  ['taps LESS_THAN with two values', where({ field: 'taps', operator: 'LESS_THAN', values: ['1', '2'] }), false],
  ['a low bound above the high one', where({ field: 'taps', operator: 'BETWEEN', values: ['50', '10'] }), true],
  ['an unknown field', where({ field: 'color', operator: 'EQUALS', values: ['red'] }), false],
  ['a metadata field that is no condition', where({ field: 'orgId', operator: 'EQUALS', values: ['1'] }), false],
  ['an unknown operator', where({ field: 'campaignId', operator: 'LIKE', values: ['1'] }), false],
  ['a campaign id that is not digits', where({ field: 'campaignId', operator: 'EQUALS', values: ['12ab'] }), false],
  ['a campaign id as a JSON number', where({ field: 'campaignId', operator: 'EQUALS', values: [1234567890] }), false],
  ['a metric that is not a number', where({ field: 'impressions', operator: 'GREATER_THAN', values: ['many'] }), false],
  ['a negative metric bound', where({ field: 'localSpend', operator: 'GREATER_THAN', values: ['-1'] }), true],
  ['an unknown status', where({ field: 'campaignStatus', operator: 'EQUALS', values: ['RUNNING'] }), false],
  ['a lower-case country', where({ field: 'countriesOrRegions', operator: 'CONTAINS', values: ['us'] }), false],
  ['an unknown supply source', where({ field: 'supplySources', operator: 'CONTAINS', values: ['WEB'] }), false],
  ['deleted as yes', where({ field: 'deleted', operator: 'EQUALS', values: ['yes'] }), false],
  ['values that are not a list', where({ field: 'campaignName', operator: 'EQUALS', values: 'x' }), false],
  [
    'a value longer than 256 characters',
    where({ field: 'campaignName', operator: 'CONTAINS', values: ['x'.repeat(257)] }),
    false,
  ],
  [
    '1000 values',
    where({ field: 'campaignId', operator: 'IN', values: Array.from({ length: 1000 }, (_, i) => String(i + 1)) }),
    true,
  ],
  [
    '1001 values',
    where({ field: 'campaignId', operator: 'IN', values: Array.from({ length: 1001 }, (_, i) => String(i + 1)) }),
    false,
  ],
  ['a condition without values', where({ field: 'campaignName', operator: 'EQUALS' }), false],
  [
    'a condition with an extra attribute',
    where({ field: 'taps', operator: 'EQUALS', values: ['1'], not: true }),
    false,
  ],
  [
    '20 conditions',
    where(...Array.from({ length: 20 }, () => ({ field: 'deleted', operator: 'EQUALS', values: ['false'] }))),
    true,
  ],
  [
    '21 conditions',
    where(...Array.from({ length: 21 }, () => ({ field: 'deleted', operator: 'EQUALS', values: ['false'] }))),
    false,
  ],
  ['conditions that are not a list', body({ conditions: { field: 'taps' } }), false],
];

const GROUP_BY_CASES: Case[] = [
  ...GROUP_BY.map((dimension): Case => [`groupBy ${dimension}`, body({}, { groupBy: [dimension] }), true]),
  ['an empty groupBy', body({}, { groupBy: [] }), true],
  ['groupBy an unknown dimension', body({}, { groupBy: ['city'] }), false],
  ['groupBy two dimensions', body({}, { groupBy: ['countryOrRegion', 'deviceClass'] }), false],
  ['groupBy as a string', body({}, { groupBy: 'countryOrRegion' }), false],
];

const ORDER_BY_CASES: Case[] = [
  ...ORDER_BY.flatMap((field): Case[] => [
    [`orderBy ${field} ascending`, body({ orderBy: [{ field, sortOrder: 'ASCENDING' }] }), true],
    [`orderBy ${field} descending`, body({ orderBy: [{ field, sortOrder: 'DESCENDING' }] }), true],
  ]),
  ['orderBy an unknown field', body({ orderBy: [{ field: 'color', sortOrder: 'ASCENDING' }] }), false],
  ['orderBy a condition-only field', body({ orderBy: [{ field: 'campaignStatus', sortOrder: 'ASCENDING' }] }), false],
  ['orderBy without sortOrder', body({ orderBy: [{ field: 'taps' }] }), false],
  ['orderBy with a lower-case sortOrder', body({ orderBy: [{ field: 'taps', sortOrder: 'asc' }] }), false],
  ['orderBy with an extra attribute', body({ orderBy: [{ field: 'taps', sortOrder: 'ASCENDING', x: 1 }] }), false],
  [
    'five orderBy entries',
    body({ orderBy: ORDER_BY.slice(0, 5).map((field) => ({ field, sortOrder: 'ASCENDING' })) }),
    true,
  ],
  [
    'six orderBy entries',
    body({ orderBy: ORDER_BY.slice(0, 6).map((field) => ({ field, sortOrder: 'ASCENDING' })) }),
    false,
  ],
];

describe('the catalogue schema and the sandbox agree on report bodies', () => {
  it.each<Case>([...OPERATOR_CASES, ...EMPTY_VALUE_CASES, ...SHAPE_CASES, ...GROUP_BY_CASES, ...ORDER_BY_CASES])(
    '%s',
    (_name, reportBody, accepted) => {
      const problems = validateBody(REPORT, reportBody);
      const answer = runReport(reportBody);
      expect({ gateway: problems.length === 0, sandbox: answer.status === 200 }).toEqual({
        gateway: accepted,
        sandbox: accepted,
      });
      if (!accepted) {
        expect(answer.status).toBe(400);
        expect(answer.errors).toEqual([
          { messageCode: 'INVALID_ATTRIBUTE_VALUE', message: expect.any(String), field: expect.any(String) },
        ]);
      }
    },
  );
});
