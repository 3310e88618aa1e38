import type { EndpointSpec, ProviderSpec } from '../types';
import { MARKETPLACE_PROVIDER, unixSeconds } from './marketplace.shared';

export const MARKETPLACE_AFFILIATE_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'marketplace-affiliate',
    path: '/api/v2/ams/get_performance_data_update_time',
    method: 'GET',
    title: 'Affiliate data freshness',
    summary: 'The last day the affiliate reports cover. The usual first call.',
    keywords: ['affiliate data update', 'last report date', 'freshness', 'affiliate'],
    params: [
      {
        name: 'marker_type',
        type: 'enum',
        required: true,
        values: ['AmsMarker'],
        description: 'Always AmsMarker.',
        example: 'AmsMarker',
      },
    ],
    returns: 'response{last_report_date (YYYY-MM-DD)}.',
  },
  {
    provider: 'marketplace-affiliate',
    path: '/api/v2/ams/get_shop_performance',
    method: 'GET',
    title: 'Affiliate shop performance',
    summary: 'Sales, orders, clicks, estimated commission, ROI and buyers brought by affiliates.',
    keywords: ['affiliate performance', 'affiliate sales', 'commission', 'affiliates', 'kol', 'roi'],
    params: [
      {
        name: 'period_type',
        type: 'enum',
        required: true,
        values: ['Day', 'Week', 'Month', 'Last7d', 'Last30d'],
        description: 'Period the dates describe.',
        example: 'Last30d',
      },
      {
        name: 'start_date',
        type: 'date',
        required: true,
        format: 'YYYYMMDD',
        description: 'First day, YYYYMMDD.',
        example: '20261025',
      },
      {
        name: 'end_date',
        type: 'date',
        required: true,
        format: 'YYYYMMDD',
        description: 'Last day, YYYYMMDD.',
        example: '20261124',
      },
      {
        name: 'order_type',
        type: 'enum',
        required: true,
        values: ['ConfirmedOrder', 'PlacedOrder'],
        description: 'Which orders count.',
        example: 'ConfirmedOrder',
      },
      {
        name: 'channel',
        type: 'enum',
        required: true,
        values: ['AllChannel', 'SocialMedia', 'ShopeeVideo', 'LiveStreaming'],
        description: 'Affiliate channel.',
        example: 'AllChannel',
      },
    ],
    returns:
      'response{sales, orders, clicks, est_commission, roi, total_buyers, new_buyers, fetched_date_range} (money as strings).',
  },
  {
    provider: 'marketplace-affiliate',
    path: '/api/v2/ams/get_conversion_report',
    method: 'GET',
    title: 'Affiliate conversions',
    summary: 'Orders placed through affiliates, with the affiliate, channel and items, paged by page number.',
    keywords: ['affiliate orders', 'conversions', 'conversion report', 'affiliate conversions'],
    params: [
      {
        name: 'page_no',
        type: 'integer',
        required: true,
        minimum: 1,
        description: 'Page number from 1; page_no x page_size at most 10,000.',
        example: 1,
      },
      {
        name: 'page_size',
        type: 'integer',
        required: true,
        minimum: 1,
        maximum: 500,
        description: 'Rows per page, up to 500.',
        example: 100,
      },
      unixSeconds('place_order_time_start', 'Orders placed at or after this unix time.'),
      unixSeconds('place_order_time_end', 'Orders placed before this unix time; at most 3 months after the start.'),
    ],
    paging: {
      style: 'page_no',
      pageParam: 'page_no',
      pageSizeParam: 'page_size',
      defaultPageSize: 100,
      maxPageSize: 500,
      moreFlagPath: 'response.has_more',
    },
    returns:
      'response{list[{order_sn, order_status, place_order_time, affiliate_id (number), affiliate_name, channel, ' +
      'items[...]}], total_count, has_more}.',
  },
];

export const MARKETPLACE_AFFILIATE: ProviderSpec = {
  id: 'marketplace-affiliate',
  label: 'Marketplace affiliate',
  title: 'Marketplace affiliate (Open Platform v2, affiliate app)',
  connectionUnit: '1 shop on that platform',
  ...MARKETPLACE_PROVIDER,
  startingPoint: '/api/v2/ams/get_performance_data_update_time',
  endpoints: MARKETPLACE_AFFILIATE_ENDPOINTS,
};
