import { z } from 'zod';
import type { BodySpec, EndpointSpec, PagingSpec, ParameterSpec, ProviderSpec } from '../types';

// docs/providers.md, video-shop: the Shop Partner API's 202309-era reads. Paths are the platform's own.

const pageSize: ParameterSpec = {
  name: 'page_size',
  type: 'integer',
  required: true,
  description: 'Records per page, 1 to 100.',
  minimum: 1,
  maximum: 100,
  example: 50,
};

const pageToken: ParameterSpec = {
  name: 'page_token',
  type: 'string',
  required: false,
  description: 'data.next_page_token of the previous page; leave out for the first page. An empty token ends paging.',
  example: 'b2Zmc2V0PTUw',
};

const sortOrder: ParameterSpec = {
  name: 'sort_order',
  type: 'enum',
  required: false,
  values: ['ASC', 'DESC'],
  description: 'Sort direction.',
  example: 'DESC',
};

const CURSOR_PAGING: PagingSpec = {
  style: 'cursor',
  cursorParam: 'page_token',
  pageSizeParam: 'page_size',
  defaultPageSize: 20,
  maxPageSize: 100,
  nextCursorPath: 'data.next_page_token',
};

const unixSeconds = z.number().int().nonnegative();

const ORDER_STATUSES = [
  'UNPAID',
  'ON_HOLD',
  'AWAITING_SHIPMENT',
  'PARTIALLY_SHIPPING',
  'AWAITING_COLLECTION',
  'IN_TRANSIT',
  'DELIVERED',
  'COMPLETED',
  'CANCELLED',
] as const;

const ORDER_SEARCH_BODY: BodySpec = {
  required: false,
  description:
    'Filters as one JSON object: order_status, create_time_ge/create_time_lt and update_time_ge/update_time_lt ' +
    '(unix seconds), shipping_type (TIKTOK or SELLER), buyer_user_id.',
  schema: z.strictObject({
    order_status: z.enum(ORDER_STATUSES).optional(),
    create_time_ge: unixSeconds.optional(),
    create_time_lt: unixSeconds.optional(),
    update_time_ge: unixSeconds.optional(),
    update_time_lt: unixSeconds.optional(),
    shipping_type: z.enum(['TIKTOK', 'SELLER']).optional(),
    buyer_user_id: z.string().max(64).optional(),
  }),
  example: { order_status: 'AWAITING_SHIPMENT', create_time_ge: 1761955200, create_time_lt: 1762560000 },
};

const PRODUCT_SEARCH_BODY: BodySpec = {
  required: false,
  description:
    'Filters as one JSON object: status (ACTIVATE, DRAFT, PENDING, FAILED, SELLER_DEACTIVATED, ' +
    'PLATFORM_DEACTIVATED, FREEZE, DELETED, ALL), seller_skus (array), create_time_ge/create_time_le and ' +
    'update_time_ge/update_time_le (unix seconds).',
  schema: z.strictObject({
    status: z
      .enum([
        'ALL',
        'DRAFT',
        'PENDING',
        'FAILED',
        'ACTIVATE',
        'SELLER_DEACTIVATED',
        'PLATFORM_DEACTIVATED',
        'FREEZE',
        'DELETED',
      ])
      .optional(),
    seller_skus: z.array(z.string().max(128)).max(100).optional(),
    create_time_ge: unixSeconds.optional(),
    create_time_le: unixSeconds.optional(),
    update_time_ge: unixSeconds.optional(),
    update_time_le: unixSeconds.optional(),
  }),
  example: { status: 'ACTIVATE' },
};

function productSearch(version: '202309' | '202502'): EndpointSpec {
  return {
    provider: 'video-shop',
    path: `/product/${version}/products/search`,
    method: 'POST',
    title: `Search products (${version})`,
    summary:
      'Products of the shop with their SKUs, prices and stock per warehouse; a search (POST), not a write. ' +
      `${version === '202502' ? 'The newer version of the same search.' : 'Clients in the wild call 202309 or 202502.'}`,
    keywords: ['products', 'items', 'catalog', 'skus', 'stock', 'inventory', 'low stock', 'price', 'listings'],
    params: [pageSize, pageToken],
    body: PRODUCT_SEARCH_BODY,
    paging: CURSOR_PAGING,
    returns:
      'data.products[{id, title, status, skus[{id, seller_sku, price{currency, sale_price}, inventory[{warehouse_id, ' +
      'quantity}]}], create_time, update_time}], data.next_page_token, data.total_count (at most 10,000 results).',
  };
}

export const VIDEO_SHOP_ENDPOINTS: readonly EndpointSpec[] = [
  {
    provider: 'video-shop',
    path: '/authorization/202309/shops',
    method: 'GET',
    title: 'Authorized shops',
    summary: 'The shops this connection may read, with id, name, region and seller type. The usual first call.',
    keywords: ['shops', 'authorized shops', 'my shop', 'stores', 'shop list', 'region'],
    params: [],
    returns: 'data.shops[{id, name, region, seller_type LOCAL/CROSS_BORDER, code}] (no paging).',
  },
  {
    provider: 'video-shop',
    path: '/seller/202309/shops',
    method: 'GET',
    title: 'Seller shops',
    summary: "The seller's active shops.",
    keywords: ['seller', 'seller shops', 'shops', 'active shops'],
    params: [],
    returns: 'data.shops[{id, name, region, seller_type}] (no paging).',
  },
  {
    provider: 'video-shop',
    path: '/order/202309/orders/search',
    method: 'POST',
    title: 'Search orders',
    summary:
      'Orders of the shop, newest or oldest first, filtered by status and creation or update time; a search ' +
      '(POST), not a write. Times are unix seconds.',
    keywords: [
      'orders',
      'sales',
      'orders last week',
      'recent orders',
      'order status',
      'awaiting shipment',
      'cancelled orders',
      'revenue',
      'buyers',
    ],
    params: [
      pageSize,
      pageToken,
      {
        name: 'sort_field',
        type: 'enum',
        required: false,
        values: ['create_time', 'update_time'],
        description: 'Field to sort by.',
        example: 'create_time',
      },
      sortOrder,
    ],
    body: ORDER_SEARCH_BODY,
    paging: CURSOR_PAGING,
    returns:
      'data.orders[{id, status, create_time, update_time, paid_time, payment{currency, sub_total, total_amount, ' +
      'shipping_fee, tax}, line_items[...], buyer_email, user_id}], data.next_page_token, data.total_count.',
  },
  {
    provider: 'video-shop',
    path: '/order/202309/orders',
    method: 'GET',
    title: 'Orders by id',
    summary: 'The full detail of up to 50 orders by their ids.',
    keywords: ['order detail', 'order by id', 'orders by ids', 'line items', 'order payment'],
    params: [
      {
        name: 'ids',
        type: 'csv',
        required: true,
        minItems: 1,
        maxItems: 50,
        description: 'Order ids, comma-joined in ONE parameter (up to 50).',
        example: ['576461413038785752', '576461413038785753'],
      },
    ],
    returns: 'data.orders[...] with the fields of Search orders.',
  },
  productSearch('202309'),
  productSearch('202502'),
  {
    provider: 'video-shop',
    path: '/finance/202309/statements',
    method: 'GET',
    title: 'Finance statements',
    summary: 'Settlement statements of the shop: revenue, fees and the settled amount per statement.',
    keywords: ['finance', 'statements', 'settlements', 'payouts', 'fees', 'revenue', 'income'],
    params: [
      {
        name: 'sort_field',
        type: 'enum',
        required: true,
        values: ['statement_time'],
        description: 'Field to sort by (the platform requires it).',
        example: 'statement_time',
      },
      sortOrder,
      {
        name: 'statement_time_ge',
        type: 'integer',
        required: false,
        description: 'Statements at or after this unix time (seconds).',
        example: 1761955200,
      },
      {
        name: 'statement_time_lt',
        type: 'integer',
        required: false,
        description: 'Statements before this unix time (seconds).',
        example: 1762560000,
      },
      {
        name: 'payment_status',
        type: 'enum',
        required: false,
        values: ['PAID', 'FAILED', 'PROCESSING'],
        description: 'Payment status of the statement.',
        example: 'PAID',
      },
      { ...pageSize, required: false },
      pageToken,
    ],
    paging: CURSOR_PAGING,
    returns:
      'data.statements[{id, statement_time, settlement_amount, currency, revenue_amount, fee_amount, payment_status}], ' +
      'data.next_page_token.',
  },
  {
    provider: 'video-shop',
    path: '/analytics/202405/shop/performance',
    method: 'GET',
    title: 'Shop performance',
    summary: 'GMV, orders, units sold and buyers of the shop for a date range: one total, or one interval each day.',
    keywords: ['performance', 'gmv', 'shop performance', 'sales', 'analytics', 'units sold', 'buyers', 'sales by day'],
    params: [
      {
        name: 'start_date_ge',
        type: 'date',
        required: true,
        format: 'YYYY-MM-DD',
        description: 'First day (inclusive), in the shop time zone.',
        example: '2026-11-01',
      },
      {
        name: 'end_date_lt',
        type: 'date',
        required: true,
        format: 'YYYY-MM-DD',
        description: 'Day after the last day (exclusive).',
        example: '2026-11-08',
      },
      {
        name: 'granularity',
        type: 'enum',
        required: false,
        values: ['ALL', '1D'],
        description: 'ALL: one interval for the range; 1D: one per day.',
        default: 'ALL',
        example: '1D',
      },
      {
        name: 'currency',
        type: 'enum',
        required: false,
        values: ['USD', 'LOCAL'],
        description: 'Currency of the amounts.',
        default: 'LOCAL',
        example: 'USD',
      },
    ],
    returns: 'data.performance.intervals[{start_date, end_date, gmv{amount, currency}, orders, units_sold, buyers}].',
  },
];

export const VIDEO_SHOP: ProviderSpec = {
  id: 'video-shop',
  label: 'Video shop',
  title: 'Video shop (Shop Partner API)',
  connectionUnit: '1 shop',
  upstreamPrefix: '',
  envelope: {
    codeField: 'code',
    successCode: 0,
    // 105001/105002: invalid or expired access token; 36009004: invalid token (or app key, timestamp, cipher).
    tokenErrorCodes: [105001, 105002, 36009004],
    errorsUseHttp200: false,
    numericIds: false,
  },
  // Set by the service on every call: the app, the signature, the connection's token and shop.
  ownedParams: ['app_key', 'app_secret', 'sign', 'timestamp', 'access_token', 'shop_cipher', 'shop_id'],
  ownedHeaders: ['x-tts-access-token'],
  startingPoint: '/authorization/202309/shops',
  grant:
    "The seller authorizes the gateway's app on the platform's authorization page; the gateway exchanges the code " +
    'for tokens and creates one connection per authorized shop, with the shop cipher stored.',
  endpoints: VIDEO_SHOP_ENDPOINTS,
};
