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

const ReportBody = z.strictObject({
  startTime: z.string().regex(DATE, 'startTime must be YYYY-MM-DD'),
  endTime: z.string().regex(DATE, 'endTime must be YYYY-MM-DD'),
  granularity: z.enum(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY']).optional(),
  timeZone: z.enum(['UTC', 'ORTZ']).optional(),
  selector: z.strictObject({
    orderBy: z
      .array(z.strictObject({ field: z.string().max(64), sortOrder: z.enum(['ASCENDING', 'DESCENDING']) }))
      .max(5)
      .optional(),
    conditions: z
      .array(
        z.strictObject({
          field: z.string().max(64),
          operator: z.enum([
            'EQUALS',
            'IN',
            'CONTAINS',
            'CONTAINS_ANY',
            'CONTAINS_ALL',
            'STARTSWITH',
            'LESS_THAN',
            'GREATER_THAN',
            'BETWEEN',
          ]),
          values: z.array(z.string().max(256)).max(1000),
        }),
      )
      .max(20)
      .optional(),
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
    },
  ],
  grant:
    'The portal generates an ES256 key pair for the connection and shows only the public key, which the customer ' +
    'registers as an API user on the platform; the customer enters the client, team and key ids and picks the ' +
    'organization. Tokens are minted from a signed client assertion and live one hour.',
  endpoints: SEARCH_ADS_ENDPOINTS,
};
