import type { BodySpec, EndpointSpec, PagingSpec, ParameterSpec, ProviderSpec } from '../types';

// Spec 4.2 and docs/providers.md (video-ads, API v1.3).
const UPSTREAM_PREFIX = '/open_api';

/** The platform reads the same parameters from a JSON body on GET; arrays and objects are then plain JSON. */
const JSON_BODY_ON_GET: BodySpec = {
  required: false,
  description:
    'Optional: the same parameters as one JSON object (arrays and objects as JSON values), as the platform accepts on GET.',
  example: { advertiser_id: '7012345678901234567', page: 1, page_size: 100 },
};

const PAGE_PAGING: PagingSpec = {
  style: 'page',
  pageParam: 'page',
  pageSizeParam: 'page_size',
  defaultPageSize: 10,
  maxPageSize: 1000,
  pageInfoPath: 'data.page_info',
};

const advertiserId: ParameterSpec = {
  name: 'advertiser_id',
  type: 'string',
  required: true,
  description: 'Advertiser account id, taken from /v1.3/oauth2/advertiser/get/.',
  example: '7012345678901234567',
};

const page: ParameterSpec = {
  name: 'page',
  type: 'integer',
  required: false,
  description: 'Page number, from 1 to data.page_info.total_page.',
  default: 1,
  minimum: 1,
  example: 1,
};

const pageSize: ParameterSpec = {
  name: 'page_size',
  type: 'integer',
  required: false,
  description: 'Rows per page. 1000 means fewer requests.',
  default: 10,
  minimum: 1,
  maximum: 1000,
  example: 1000,
};

const fields: ParameterSpec = {
  name: 'fields',
  type: 'json-array',
  required: false,
  description: 'Fields to return, as ONE parameter holding a JSON array of strings.',
  example: ['campaign_id', 'campaign_name'],
};

const startDate: ParameterSpec = {
  name: 'start_date',
  type: 'date',
  required: true,
  format: 'YYYY-MM-DD',
  description: 'First day of the report, in the advertiser time zone.',
  example: '2026-10-01',
};

const endDate: ParameterSpec = {
  name: 'end_date',
  type: 'date',
  required: true,
  format: 'YYYY-MM-DD',
  description:
    'Last day of the report. At most 30 days after start_date with stat_time_day, 1 day with stat_time_hour.',
  example: '2026-10-30',
};

const REPORT_DIMENSIONS = ['advertiser_id', 'campaign_id', 'adgroup_id', 'ad_id', 'stat_time_day', 'stat_time_hour'];

function listEndpoint(entity: 'campaign' | 'adgroup' | 'ad', plural: string, keywords: string[]): EndpointSpec {
  const idField = `${entity}_id`;
  return {
    provider: 'video-ads',
    path: `/v1.3/${entity}/get/`,
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: `List ${plural}`,
    summary: `Lists the ${plural} of one advertiser with their names and settings; join with report rows by ${idField}.`,
    keywords,
    params: [
      advertiserId,
      fields,
      {
        name: 'filtering',
        type: 'json-object',
        required: false,
        description: `Filter as ONE parameter holding a JSON object, e.g. ids (${idField}s) or primary_status.`,
        example: { primary_status: 'STATUS_DELIVERY_OK' },
      },
      page,
      pageSize,
    ],
    paging: PAGE_PAGING,
    returns: `Envelope {code, message, request_id, data: {list: [${entity} records], page_info}}.`,
  };
}

export const VIDEO_ADS_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'video-ads',
    path: '/v1.3/oauth2/advertiser/get/',
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: 'List advertiser accounts',
    summary: 'Advertiser accounts the connection can see: the starting point for every other call.',
    keywords: ['advertisers', 'advertiser accounts', 'ad accounts', 'accounts', 'which accounts', 'list accounts'],
    params: [],
    returns: 'Envelope with data.list: [{advertiser_id, advertiser_name}] (no paging).',
  },
  {
    provider: 'video-ads',
    path: '/v1.3/advertiser/info/',
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: 'Advertiser details',
    summary: 'Name, currency, time zone and status of one or several advertisers; needed to read spend values.',
    keywords: ['advertiser info', 'currency', 'time zone', 'timezone', 'account status', 'balance', 'company'],
    params: [
      {
        name: 'advertiser_ids',
        type: 'json-array',
        required: true,
        description: 'Advertiser ids as ONE parameter holding a JSON array of strings (at most 100).',
        minItems: 1,
        maxItems: 100,
        example: ['7012345678901234567'],
      },
      fields,
    ],
    returns: 'Envelope with data.list: one object per advertiser (name, currency, timezone, status, ...).',
  },
  {
    provider: 'video-ads',
    path: '/v1.3/report/integrated/get/',
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: 'Performance report',
    summary: 'Spend, impressions, clicks and conversions by campaign, ad group, ad or day.',
    keywords: [
      'report',
      'performance',
      'spend',
      'cost',
      'impressions',
      'clicks',
      'ctr',
      'cpc',
      'cpm',
      'conversions',
      'results',
      'daily',
      'by day',
      'per campaign',
      'metrics',
      'statistics',
      'how much did we spend',
    ],
    params: [
      advertiserId,
      {
        name: 'report_type',
        type: 'enum',
        required: true,
        values: ['BASIC', 'AUDIENCE', 'PLAYABLE_MATERIAL'],
        description: 'BASIC for performance; AUDIENCE for breakdowns by audience.',
        example: 'BASIC',
      },
      {
        name: 'data_level',
        type: 'enum',
        required: false,
        requiredWhen: { param: 'report_type', equals: 'BASIC' },
        values: ['AUCTION_AD', 'AUCTION_ADGROUP', 'AUCTION_CAMPAIGN', 'AUCTION_ADVERTISER'],
        description: 'Level of the rows; required when report_type is BASIC.',
        example: 'AUCTION_CAMPAIGN',
      },
      {
        name: 'dimensions',
        type: 'json-array',
        required: true,
        values: REPORT_DIMENSIONS,
        minItems: 1,
        maxItems: 4,
        description: 'Grouping as ONE parameter holding a JSON array, e.g. ["campaign_id","stat_time_day"].',
        example: ['campaign_id', 'stat_time_day'],
      },
      {
        name: 'metrics',
        type: 'json-array',
        required: false,
        default: ['spend', 'impressions'],
        description: 'Metrics as ONE parameter holding a JSON array; every value comes back as a string.',
        example: ['spend', 'impressions', 'clicks', 'conversion'],
      },
      startDate,
      endDate,
      page,
      pageSize,
    ],
    paging: PAGE_PAGING,
    returns:
      'Envelope with data.list: [{dimensions: {...}, metrics: {...}}] (all values strings, ids not names) and data.page_info.',
  },
  listEndpoint('campaign', 'campaigns', [
    'campaigns',
    'campaign names',
    'campaign list',
    'campaign budget',
    'objective',
  ]),
  listEndpoint('adgroup', 'ad groups', ['ad groups', 'adgroups', 'targeting', 'bids', 'placements', 'ad group names']),
  listEndpoint('ad', 'ads', ['ads', 'creatives', 'ad names', 'ad text', 'landing page']),
  {
    provider: 'video-ads',
    path: '/v1.3/gmv_max/store/list/',
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: 'List GMV Max stores',
    summary: 'Shops linked to the advertiser for GMV Max campaigns.',
    keywords: ['gmv max', 'stores', 'shops', 'store list', 'shop ads'],
    params: [advertiserId],
    returns: 'Envelope with data.store_list: [{store_id, store_name, store_status, ...}] (no paging).',
  },
  {
    provider: 'video-ads',
    path: '/v1.3/gmv_max/report/get/',
    method: 'GET',
    body: JSON_BODY_ON_GET,
    title: 'GMV Max report',
    summary: 'Gross merchandise value, orders and cost of GMV Max campaigns of one store.',
    keywords: ['gmv', 'gmv max report', 'orders', 'revenue', 'sales', 'roi', 'store performance', 'gross revenue'],
    params: [
      advertiserId,
      {
        name: 'store_ids',
        type: 'json-array',
        required: true,
        minItems: 1,
        maxItems: 1,
        description: 'Exactly one store id, as ONE parameter holding a JSON array.',
        example: ['7301234567890123456'],
      },
      startDate,
      endDate,
      {
        name: 'metrics',
        type: 'json-array',
        required: true,
        minItems: 1,
        maxItems: 100,
        description: 'Metrics as ONE parameter holding a JSON array, e.g. ["cost","orders","gross_revenue"].',
        example: ['cost', 'orders', 'gross_revenue', 'roi'],
      },
      {
        name: 'dimensions',
        type: 'json-array',
        required: true,
        minItems: 1,
        maxItems: 3,
        values: [
          'advertiser_id',
          'campaign_id',
          'stat_time_day',
          'stat_time_hour',
          'item_group_id',
          'item_id',
          'room_id',
          'duration',
        ],
        description: 'At most 3 dimensions, as ONE parameter holding a JSON array.',
        example: ['campaign_id', 'stat_time_day'],
      },
      page,
      pageSize,
    ],
    paging: PAGE_PAGING,
    returns: 'Envelope with data.list: [{dimensions, metrics}] and data.page_info, like the performance report.',
  },
];

export const VIDEO_ADS: ProviderSpec = {
  id: 'video-ads',
  label: 'Video ads',
  title: 'Video ads (Business API v1.3)',
  connectionUnit: '1 business center',
  upstreamPrefix: UPSTREAM_PREFIX,
  envelope: {
    codeField: 'code',
    successCode: 0,
    // "Access token is incorrect or has been revoked."; the token never expires otherwise.
    tokenErrorCodes: [40105],
    errorsUseHttp200: true,
    numericIds: false,
  },
  // spec 4.2: app_id, secret and access_token are always the service's own.
  ownedParams: ['app_id', 'secret', 'access_token'],
  ownedHeaders: ['Access-Token'],
  startingPoint: '/v1.3/oauth2/advertiser/get/',
  grant:
    "The platform's advertiser authorization page: the customer picks a business center, the gateway exchanges " +
    'the auth_code for a token that lives until the advertiser cancels the grant.',
  endpoints: VIDEO_ADS_ENDPOINTS,
};
