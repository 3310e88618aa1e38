import type { EndpointSpec, PagingSpec, ProviderSpec } from '../types';
import { MARKETPLACE_PROVIDER, unixSeconds } from './marketplace.shared';

// The platform sandbox's get_order_list accepts exactly these (test/marketplace.gateway.test.ts checks both ways).
const ORDER_STATUSES = [
  'UNPAID',
  'READY_TO_SHIP',
  'PROCESSED',
  'SHIPPED',
  'COMPLETED',
  'IN_CANCEL',
  'CANCELLED',
  'TO_RETURN',
  'INVOICE_PENDING',
];

const ORDER_CURSOR: PagingSpec = {
  style: 'cursor',
  cursorParam: 'cursor',
  pageSizeParam: 'page_size',
  defaultPageSize: 20,
  maxPageSize: 100,
  nextCursorPath: 'response.next_cursor',
};

const ITEM_OFFSET: PagingSpec = {
  style: 'offset',
  offsetParam: 'offset',
  limitParam: 'page_size',
  defaultPageSize: 10,
  maxPageSize: 100,
  moreFlagPath: 'response.has_next_page',
};

export const MARKETPLACE_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'marketplace',
    path: '/api/v2/shop/get_shop_info',
    method: 'GET',
    title: 'Shop information',
    summary: 'Name, region, status and authorization dates of the connected shop. The usual first call.',
    keywords: ['shop', 'shop info', 'my shop', 'region', 'shop name', 'authorization expiry'],
    params: [],
    returns: 'Top-level shop_name, region, status, is_cb, auth_time, expire_time, merchant_id (no response object).',
  },
  {
    provider: 'marketplace',
    path: '/api/v2/order/get_order_list',
    method: 'GET',
    title: 'List orders',
    summary: 'Order numbers and statuses created or updated in a time range of at most 15 days (unix seconds).',
    keywords: ['orders', 'order list', 'sales', 'recent orders', 'orders last week', 'order status', 'to ship'],
    params: [
      {
        name: 'time_range_field',
        type: 'enum',
        required: true,
        values: ['create_time', 'update_time'],
        description: 'Which time the range applies to.',
        example: 'create_time',
      },
      unixSeconds('time_from', 'Start of the range, unix seconds.'),
      unixSeconds('time_to', 'End of the range, unix seconds; at most 15 days after time_from.'),
      {
        name: 'page_size',
        type: 'integer',
        required: true,
        minimum: 1,
        maximum: 100,
        description: 'Orders per page, 1 to 100.',
        example: 100,
      },
      {
        name: 'cursor',
        type: 'string',
        required: false,
        description: 'response.next_cursor of the previous page; empty for the first.',
        example: '',
      },
      {
        name: 'order_status',
        type: 'enum',
        required: false,
        values: ORDER_STATUSES,
        description: 'Only orders in this status.',
        example: 'READY_TO_SHIP',
      },
    ],
    paging: ORDER_CURSOR,
    returns: 'response{more, next_cursor, order_list[{order_sn, order_status}]}.',
  },
  {
    provider: 'marketplace',
    path: '/api/v2/order/get_order_detail',
    method: 'GET',
    title: 'Order details',
    summary: 'Amounts, items, status and times of up to 50 orders by their order numbers (order_sn).',
    keywords: ['order detail', 'order items', 'order amount', 'order total', 'order by number'],
    params: [
      {
        name: 'order_sn_list',
        type: 'csv',
        required: true,
        minItems: 1,
        maxItems: 50,
        description: 'Order numbers (up to 50), comma-joined (the platform also takes the parameter repeated).',
        example: ['2511250AB1CDEF', '2511250AB1CDEG'],
      },
      {
        name: 'response_optional_fields',
        type: 'string',
        required: false,
        description:
          'Extra fields, comma-joined (e.g. item_list,total_amount,buyer_username); the platform also takes the ' +
          'parameter repeated.',
        example: 'item_list,total_amount',
      },
    ],
    returns:
      'response{order_list[{order_sn, region, currency, total_amount, order_status, create_time, update_time, item_list[...]}]}.',
  },
  {
    provider: 'marketplace',
    path: '/api/v2/product/get_item_list',
    method: 'GET',
    title: 'List items',
    summary: 'Item ids and statuses of the shop, paged by offset.',
    keywords: ['items', 'products', 'listings', 'catalog', 'item list', 'stock'],
    params: [
      {
        name: 'offset',
        type: 'integer',
        required: true,
        minimum: 0,
        description: 'Start at 0, then response.next_offset.',
        example: 0,
      },
      {
        name: 'page_size',
        type: 'integer',
        required: true,
        minimum: 1,
        maximum: 100,
        description: 'Items per page, 1 to 100.',
        example: 100,
      },
      {
        name: 'item_status',
        type: 'repeated',
        required: true,
        values: ['NORMAL', 'BANNED', 'UNLIST', 'REVIEWING', 'SELLER_DELETE', 'SHOPEE_DELETE'],
        description:
          'Statuses to include, one or several. The platform takes several statuses as the parameter repeated ' +
          '(item_status=NORMAL&item_status=BANNED) and reads a comma-joined value as one unknown status.',
        example: ['NORMAL'],
      },
      unixSeconds('update_time_from', 'Items updated at or after this unix time.', false),
      unixSeconds('update_time_to', 'Items updated before this unix time.', false),
    ],
    paging: ITEM_OFFSET,
    returns: 'response{item[{item_id (number), item_status, update_time}], total_count, has_next_page, next_offset}.',
  },
  {
    provider: 'marketplace',
    path: '/api/v2/product/get_item_base_info',
    method: 'GET',
    title: 'Item details',
    summary: 'Names, SKUs, categories and prices of up to 50 items by id.',
    keywords: ['item detail', 'product detail', 'price', 'sku', 'item name'],
    params: [
      {
        name: 'item_id_list',
        type: 'csv',
        required: true,
        minItems: 1,
        maxItems: 50,
        description: 'Item ids (up to 50), comma-joined (the platform also takes the parameter repeated).',
        example: ['4200000001', '4200000002'],
      },
    ],
    returns: 'response{item_list[{item_id (number), category_id, item_name, item_sku, price_info[...]}]}.',
  },
];

export const MARKETPLACE: ProviderSpec = {
  id: 'marketplace',
  label: 'Marketplace (seller app)',
  title: 'Marketplace (Open Platform v2, seller app)',
  connectionUnit: '1 shop on that platform',
  ...MARKETPLACE_PROVIDER,
  startingPoint: '/api/v2/shop/get_shop_info',
  endpoints: MARKETPLACE_ENDPOINTS,
};
