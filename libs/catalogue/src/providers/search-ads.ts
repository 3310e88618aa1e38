import { z } from 'zod';
import type { EndpointSpec, PagingSpec, ParameterSpec, ProviderSpec } from '../types';

// docs/providers.md, search-ads: the Campaign Management API v5, retired by the platform on 2027-01-26.

const limit: ParameterSpec = {
  name: 'limit',
  type: 'integer',
  required: false,
  minimum: 1,
  maximum: 1000,
  default: 20,
  description: 'Records per page, 1 to 1000 (default 20).',
  example: 1000,
};

const offset: ParameterSpec = {
  name: 'offset',
  type: 'integer',
  required: false,
  minimum: 0,
  default: 0,
  description: 'Records to skip: 0, then add limit while pagination.totalResults says more follow.',
  example: 0,
};

const LIST_PAGING: PagingSpec = {
  style: 'offset',
  offsetParam: 'offset',
  limitParam: 'limit',
  defaultPageSize: 20,
  maxPageSize: 1000,
  moreFlagPath: 'pagination.totalResults',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The metric fields of a report row: conditions compare them (money by its amount), orderBy sorts by them. */
const METRIC_FIELDS = [
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
] as const;

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

/** What a field holds decides the operators the platform takes on it (it refuses the others with a 400). */
type FieldType = 'id' | 'metric' | 'text' | 'enum' | 'list' | 'boolean';
const OPERATORS_BY_TYPE: Readonly<Record<FieldType, readonly Operator[]>> = {
  id: ['EQUALS', 'IN', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  metric: ['EQUALS', 'LESS_THAN', 'GREATER_THAN', 'BETWEEN'],
  text: ['EQUALS', 'IN', 'CONTAINS', 'STARTSWITH'],
  enum: ['EQUALS', 'IN'],
  list: ['CONTAINS', 'CONTAINS_ANY', 'CONTAINS_ALL'],
  boolean: ['EQUALS'],
};

interface ConditionField {
  type: FieldType;
  /** The only values the field can hold. */
  allowed?: readonly string[];
  /** The form of a value otherwise. */
  pattern?: RegExp;
}

const ID = /^\d{1,19}$/;
const DECIMAL = /^-?\d{1,15}(\.\d{1,6})?$/;
const REPORT_CONDITION_FIELDS: Readonly<Record<string, ConditionField>> = {
  campaignId: { type: 'id', pattern: ID },
  adamId: { type: 'id', pattern: ID },
  campaignName: { type: 'text' },
  campaignStatus: { type: 'enum', allowed: ['ENABLED', 'PAUSED'] },
  servingStatus: { type: 'enum', allowed: ['RUNNING', 'NOT_RUNNING'] },
  displayStatus: { type: 'enum', allowed: ['RUNNING', 'ON_HOLD', 'PAUSED', 'DELETED'] },
  adChannelType: { type: 'enum', allowed: ['SEARCH', 'DISPLAY'] },
  countriesOrRegions: { type: 'list', pattern: /^[A-Z]{2}$/ },
  supplySources: {
    type: 'list',
    allowed: ['APPSTORE_SEARCH_RESULTS', 'APPSTORE_SEARCH_TAB', 'APPSTORE_TODAY_TAB', 'APPSTORE_PRODUCT_PAGES_BROWSE'],
  },
  deleted: { type: 'boolean', allowed: ['true', 'false'] },
  ...Object.fromEntries(METRIC_FIELDS.map((field) => [field, { type: 'metric', pattern: DECIMAL }])),
};
const CONDITION_FIELD_NAMES = Object.keys(REPORT_CONDITION_FIELDS) as [string, ...string[]];

/** How many values an operator takes: one to compare with, two bounds, or a non-empty set. */
function valueCountProblem(operator: Operator, count: number): string | undefined {
  if (operator === 'BETWEEN') return count === 2 ? undefined : 'BETWEEN takes exactly two values, low and high';
  if (operator === 'IN' || operator === 'CONTAINS_ANY' || operator === 'CONTAINS_ALL') {
    return count >= 1 ? undefined : `${operator} takes at least one value`;
  }
  return count === 1 ? undefined : `${operator} takes exactly one value`;
}

function valueProblem(field: ConditionField, value: string): string | undefined {
  if (field.allowed && !field.allowed.includes(value)) return `${value} is not one of ${field.allowed.join(', ')}`;
  if (field.pattern && !field.pattern.test(value)) return `${value} is not a valid ${field.type} value`;
  return undefined;
}

const ReportCondition = z
  .strictObject({
    field: z.enum(CONDITION_FIELD_NAMES),
    operator: z.enum(OPERATORS),
    values: z.array(z.string().max(256)).max(1000),
  })
  .superRefine((condition, ctx) => {
    const field = REPORT_CONDITION_FIELDS[condition.field]!;
    if (!OPERATORS_BY_TYPE[field.type].includes(condition.operator)) {
      ctx.addIssue({
        code: 'custom',
        path: ['operator'],
        message: `${condition.operator} does not apply to ${condition.field}; it takes ${OPERATORS_BY_TYPE[field.type].join(', ')}`,
      });
      return;
    }
    const countProblem = valueCountProblem(condition.operator, condition.values.length);
    if (countProblem) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: countProblem });
      return;
    }
    for (const [index, value] of condition.values.entries()) {
      const problem = valueProblem(field, value);
      if (problem) ctx.addIssue({ code: 'custom', path: ['values', index], message: problem });
    }
  });

const ReportBody = z.strictObject({
  startTime: z.string().regex(DATE, 'startTime must be YYYY-MM-DD'),
  endTime: z.string().regex(DATE, 'endTime must be YYYY-MM-DD'),
  granularity: z.enum(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY']).optional(),
  timeZone: z.enum(['UTC', 'ORTZ']).optional(),
  selector: z.strictObject({
    orderBy: z
      .array(
        z.strictObject({
          field: z.enum([...METRIC_FIELDS, 'campaignId', 'campaignName']),
          sortOrder: z.enum(['ASCENDING', 'DESCENDING']),
        }),
      )
      .max(5)
      .optional(),
    conditions: z.array(ReportCondition).max(20).optional(),
    pagination: z.strictObject({
      offset: z.number().int().min(0),
      limit: z.number().int().min(1).max(1000),
    }),
  }),
  groupBy: z
    .array(z.enum(['countryOrRegion', 'adminArea', 'locality', 'deviceClass', 'ageRange', 'gender']))
    .max(1)
    .optional(),
  returnRowTotals: z.boolean().optional(),
  returnGrandTotals: z.boolean().optional(),
  returnRecordsWithNoMetrics: z.boolean().optional(),
});

export const SEARCH_ADS_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'search-ads',
    path: '/api/v5/acls',
    method: 'GET',
    title: 'Organizations',
    summary: 'The organizations (orgId, name, currency, time zone, roles) the API user can see. The usual first call.',
    keywords: ['organizations', 'orgs', 'accounts', 'acls', 'which accounts', 'currency', 'time zone'],
    params: [],
    returns:
      'data: [{orgName, orgId (number), currency, timeZone, paymentModel, roleNames[], parentOrgId, displayName}].',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/me',
    method: 'GET',
    title: 'API user',
    summary: 'The user id and parent organization of the API user.',
    keywords: ['me', 'user', 'api user', 'parent org'],
    params: [],
    returns: 'data: {userId, parentOrgId}.',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/campaigns',
    method: 'GET',
    title: 'List campaigns',
    summary: 'Campaigns of the organization with budget, status, countries and channel, paged by limit/offset.',
    keywords: ['campaigns', 'campaign list', 'budget', 'campaign status', 'countries', 'apps'],
    params: [limit, offset],
    paging: LIST_PAGING,
    returns:
      'data: [{id (number), orgId, name, adamId, dailyBudgetAmount{amount, currency}, status, servingStatus, ' +
      'displayStatus, countriesOrRegions[], adChannelType, supplySources[], startTime, deleted}], ' +
      'pagination{totalResults, startIndex, itemsPerPage}.',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/campaigns/{campaignId}',
    method: 'GET',
    title: 'One campaign',
    summary: 'One campaign by id: put the campaign id (digits) in the path, e.g. /api/v5/campaigns/1234567890.',
    keywords: ['campaign detail', 'campaign by id', 'one campaign'],
    params: [],
    returns: 'data: the campaign object of List campaigns.',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/campaigns/{campaignId}/adgroups',
    method: 'GET',
    title: 'List ad groups',
    summary:
      'Ad groups of one campaign (its id in the path) with status, pricing model and default bid, paged by limit/offset.',
    keywords: ['ad groups', 'adgroups', 'bids', 'default bid', 'ad group status'],
    params: [limit, offset],
    paging: LIST_PAGING,
    returns:
      'data: [{id, campaignId, name, status, pricingModel, defaultBidAmount{amount, currency}, startTime, ...}], pagination.',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords',
    method: 'GET',
    title: 'List targeting keywords',
    summary:
      'Keywords of one ad group (campaign and ad group ids in the path) with match type, bid and status, paged by limit/offset.',
    keywords: ['keywords', 'targeting keywords', 'match type', 'keyword bids', 'search terms'],
    params: [limit, offset],
    paging: LIST_PAGING,
    returns:
      'data: [{id, adGroupId, text, status, matchType EXACT/BROAD, bidAmount{amount, currency}, modificationTime, deleted}].',
  },
  {
    provider: 'search-ads',
    path: '/api/v5/reports/campaigns',
    method: 'POST',
    title: 'Campaign report',
    summary:
      'Impressions, taps, installs, spend, average CPT and TTR per campaign over a date range, in total or per day, ' +
      'week or month; a report query (POST), not a write. Pages by selector.pagination in the body.',
    keywords: [
      'report',
      'campaign report',
      'spend',
      'taps',
      'installs',
      'impressions',
      'cpt',
      'ttr',
      'performance',
      'per campaign',
      'daily',
    ],
    params: [],
    body: {
      required: true,
      description:
        'The report query: startTime and endTime (YYYY-MM-DD), granularity (HOURLY, DAILY, WEEKLY, MONTHLY; ' +
        'leave out for totals), timeZone (UTC or ORTZ), selector {orderBy, conditions, pagination{offset, limit}}, ' +
        'groupBy, returnRowTotals, returnGrandTotals, returnRecordsWithNoMetrics.',
      schema: ReportBody,
      example: {
        startTime: '2026-11-16',
        endTime: '2026-11-22',
        granularity: 'DAILY',
        selector: {
          orderBy: [{ field: 'localSpend', sortOrder: 'DESCENDING' }],
          pagination: { offset: 0, limit: 100 },
        },
        returnRowTotals: true,
        returnGrandTotals: true,
        returnRecordsWithNoMetrics: false,
      },
    },
    returns:
      'data.reportingDataResponse{row[{metadata{campaignId, campaignName, ...}, granularity[{date, impressions, taps, ' +
      'totalInstalls, localSpend{amount, currency}, avgCPT, ttr}], total{...}}], grandTotals}, pagination.',
  },
];

export const SEARCH_ADS: ProviderSpec = {
  id: 'search-ads',
  label: 'Search ads',
  title: 'Search ads (Campaign Management API v5)',
  connectionUnit: '1 advertising account',
  upstreamPrefix: '',
  envelope: {
    codeField: 'error',
    successCode: null,
    tokenErrorCodes: ['UNAUTHORIZED'],
    errorsUseHttp200: false,
    numericIds: true,
  },
  // The service sets the token and the organization; no query parameter carries a credential on this platform.
  ownedParams: [],
  ownedHeaders: ['Authorization', 'X-AP-Context'],
  startingPoint: '/api/v5/acls',
  apiVersions: [
    {
      name: 'v5',
      pathPrefix: '/api/v5/',
      // The day the gateway opened search-ads on v5 with its retirement already announced.
      deprecatedSince: '2026-11-25',
      sunset: '2027-01-26',
      migrationDoc: 'docs/providers.md#search-ads',
      notice:
        'The platform retires Campaign Management API v5 on 2027-01-26 in favour of its Ads Platform API; the ' +
        'gateway will add the successor beside v5 under this provider.',
      migration: [
        'Until 2027-01-26 nothing changes: v5 paths keep answering through the gateway with the same key and account id.',
        'When the gateway serves the successor, its paths are listed beside v5 by GET /v1/deprecations, ' +
          'list_endpoints and docs/providers.md; move each read to its successor path before the sunset.',
        'The gateway account id of a search-ads connection does not change with the API version.',
        'After the sunset, v5 paths answer whatever the platform answers; the gateway does not hide its errors.',
      ],
    },
  ],
  grant:
    'The portal generates an ES256 key pair for the connection and shows only the public key, which the customer ' +
    'registers as an API user on the platform; the customer enters the client, team and key ids and picks the ' +
    'organization. Tokens are minted from a signed client assertion and live one hour.',
  endpoints: SEARCH_ADS_ENDPOINTS,
};
