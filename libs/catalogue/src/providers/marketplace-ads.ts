import type { EndpointSpec, ParameterSpec, ProviderSpec } from '../types';
import { MARKETPLACE_PROVIDER } from './marketplace.shared';

function ddmmyyyy(name: string, description: string, example: string): ParameterSpec {
  return { name, type: 'date', required: true, format: 'DD-MM-YYYY', description, example };
}

const startDate = ddmmyyyy('start_date', 'First day, DD-MM-YYYY.', '01-11-2026');
const endDate = ddmmyyyy('end_date', 'Last day, DD-MM-YYYY; at most one month after start_date.', '24-11-2026');

export const MARKETPLACE_ADS_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'marketplace-ads',
    path: '/api/v2/ads/get_total_balance',
    method: 'GET',
    title: 'Ads balance',
    summary: 'The ads credit left on the shop. The usual first call.',
    keywords: ['ads balance', 'credit', 'ad budget left', 'top up', 'balance'],
    params: [],
    returns: 'response{data_timestamp, total_balance (number)}.',
  },
  {
    provider: 'marketplace-ads',
    path: '/api/v2/ads/get_all_cpc_ads_daily_performance',
    method: 'GET',
    title: 'Ads performance by day',
    summary: 'Impressions, clicks, orders, GMV, expense and ROAS of all CPC ads of the shop, one row per day.',
    keywords: ['ads performance', 'daily ads', 'ad spend', 'expense', 'roas', 'clicks', 'impressions', 'cpc'],
    params: [startDate, endDate],
    returns:
      'response is an ARRAY: [{date, impression, clicks, ctr, direct_order, direct_gmv, broad_gmv, expense, direct_roas}].',
  },
  {
    provider: 'marketplace-ads',
    path: '/api/v2/ads/get_product_level_campaign_id_list',
    method: 'GET',
    title: 'Ad campaign ids',
    summary: 'The product-level ad campaigns of the shop (ids and types), paged by offset.',
    keywords: ['campaigns', 'ad campaigns', 'campaign list', 'campaign ids'],
    params: [
      {
        name: 'ad_type',
        type: 'enum',
        required: false,
        values: ['all', 'auto', 'manual'],
        description: 'Campaign type.',
        default: 'all',
        example: 'all',
      },
      {
        name: 'offset',
        type: 'integer',
        required: false,
        minimum: 0,
        description: 'Start at 0, then add limit while has_next_page.',
        default: 0,
        example: 0,
      },
      {
        name: 'limit',
        type: 'integer',
        required: false,
        minimum: 1,
        maximum: 5000,
        description: 'Campaigns per page.',
        example: 100,
      },
    ],
    paging: {
      style: 'offset',
      offsetParam: 'offset',
      limitParam: 'limit',
      defaultPageSize: 100,
      maxPageSize: 5000,
      moreFlagPath: 'response.has_next_page',
    },
    returns: 'response{shop_id, region, has_next_page, campaign_list[{ad_type, campaign_id (number)}]}.',
  },
  {
    provider: 'marketplace-ads',
    path: '/api/v2/ads/get_product_campaign_daily_performance',
    method: 'GET',
    title: 'Campaign performance by day',
    summary: 'Per campaign and day: impressions, clicks, expense and GMV.',
    keywords: ['campaign performance', 'campaign spend', 'campaign clicks', 'per campaign', 'daily campaign'],
    params: [
      startDate,
      endDate,
      {
        name: 'campaign_id_list',
        type: 'csv',
        required: true,
        minItems: 1,
        maxItems: 100,
        description: 'Campaign ids (up to 100), comma-joined (the platform also takes the parameter repeated).',
        example: ['5100000001'],
      },
    ],
    returns:
      'response is an ARRAY: [{shop_id, region, campaign_list[{campaign_id, ad_name, metrics_list[{date, impression, ' +
      'clicks, expense, broad_gmv}]}]}].',
  },
];

export const MARKETPLACE_ADS: ProviderSpec = {
  id: 'marketplace-ads',
  label: 'Marketplace ads',
  title: 'Marketplace ads (Open Platform v2, ads app)',
  connectionUnit: '1 shop on that platform',
  ...MARKETPLACE_PROVIDER,
  startingPoint: '/api/v2/ads/get_total_balance',
  endpoints: MARKETPLACE_ADS_ENDPOINTS,
};
