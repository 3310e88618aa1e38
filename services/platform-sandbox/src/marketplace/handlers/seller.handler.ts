import type { MarketCallContext } from '../call-context';
import { dataOf } from '../call-context';
import { ITEM_STATUSES, ORDER_STATUSES, type ItemModel, type OrderModel } from '../data/market-data.generator';
import { ok, topLevel, type MarketResult } from '../envelope';

const DAY_S = 86_400;
const MAX_ORDER_SPAN_S = 15 * DAY_S;
/** One year from the grant, as the platform shows it for a shop authorization. */
const AUTH_VALIDITY_S = 365 * DAY_S;

/** The platform's quirk: this path answers its fields beside request_id and error, with no `response`. */
export function getShopInfo(ctx: MarketCallContext): MarketResult {
  const authTime = Math.floor(ctx.grant.created_at / 1000);
  return topLevel({
    shop_name: ctx.shop.shop_name,
    region: ctx.shop.region,
    status: 'NORMAL',
    is_cb: ctx.shop.is_cb,
    is_sip: false,
    is_upgraded_cbsc: ctx.shop.is_cb,
    merchant_id: ctx.shop.merchant_id,
    shop_fulfillment_flag: ctx.shop.is_cb ? 'Others' : 'Pure - FBS Shop',
    is_main_shop: false,
    is_direct_shop: false,
    auth_time: authTime,
    expire_time: authTime + AUTH_VALIDITY_S,
  });
}

/** The cursor is the offset of the next order; opaque to clients, stable because the data is. */
function readCursor(ctx: MarketCallContext): number {
  const cursor = ctx.params.string('cursor');
  if (cursor === undefined) return 0;
  if (!/^\d{1,6}$/.test(cursor)) {
    ctx.params.fail('cursor is invalid.');
    return 0;
  }
  return Number(cursor);
}

export function getOrderList(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  const field = params.enumOf('time_range_field', ['create_time', 'update_time'] as const, true);
  const from = params.seconds('time_from', true) ?? 0;
  const to = params.seconds('time_to', true) ?? 0;
  const pageSize = params.int('page_size', { min: 1, max: 100, required: true });
  const status = params.enumOf('order_status', ORDER_STATUSES);
  const offset = readCursor(ctx);
  if (!params.error && from > to) params.fail('time_from must not be later than time_to.');
  if (!params.error && to - from > MAX_ORDER_SPAN_S) params.fail('The time range should not exceed 15 days.');
  if (params.error) return params.error;

  const key = field ?? 'create_time';
  const matching = dataOf(ctx)
    .orders.filter((order) => order[key] >= from && order[key] <= to)
    .filter((order) => status === undefined || order.order_status === status)
    .sort((a, b) => b[key] - a[key] || (a.order_sn < b.order_sn ? -1 : 1));
  const page = matching.slice(offset, offset + pageSize);
  const more = offset + page.length < matching.length;
  return ok({
    more,
    next_cursor: more ? String(offset + page.length) : '',
    order_list: page.map((order) => ({ order_sn: order.order_sn, order_status: order.order_status })),
  });
}

/** Fields the platform leaves out unless asked for in response_optional_fields. */
const OPTIONAL_ORDER_FIELDS: Record<string, (order: OrderModel, ctx: MarketCallContext) => unknown> = {
  total_amount: (order) => order.total_amount,
  estimated_shipping_fee: (order) => order.shipping_fee,
  pay_time: (order) => (order.order_status === 'UNPAID' ? undefined : order.create_time + 600),
  buyer_user_id: (order) => 100_000_000 + (Number.parseInt(order.order_sn.slice(-6), 36) % 899_999_999),
  payment_method: () => 'Online Payment',
  item_list: (order) =>
    order.lines.map((line) => ({
      item_id: line.item.item_id,
      item_name: line.item.item_name,
      item_sku: line.item.item_sku,
      model_id: 0,
      model_name: '',
      model_sku: '',
      model_quantity_purchased: line.quantity,
      model_original_price: line.item.price,
      model_discounted_price: line.discounted_price,
      weight: 0.5,
    })),
};

export function getOrderDetail(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  // The reference gives no form for these two lists (clients send them comma-joined): both forms are accepted.
  const sns = params.requiredList('order_sn_list', 'either', 50, /^[0-9A-Z]{6,20}$/);
  const optional = params.list('response_optional_fields', 'either');
  if (params.error) return params.error;
  const bySn = new Map(dataOf(ctx).orders.map((order) => [order.order_sn, order]));
  const found: OrderModel[] = [];
  const missing: string[] = [];
  for (const sn of sns) {
    const order = bySn.get(sn);
    if (order) found.push(order);
    else missing.push(sn);
  }
  const orderList = found.map((order) => {
    const record: Record<string, unknown> = {
      order_sn: order.order_sn,
      region: ctx.shop.region,
      currency: ctx.shop.currency,
      cod: false,
      order_status: order.order_status,
      create_time: order.create_time,
      update_time: order.update_time,
      days_to_ship: 3,
      message_to_seller: '',
    };
    for (const name of optional) {
      const value = OPTIONAL_ORDER_FIELDS[name]?.(order, ctx);
      if (value !== undefined) record[name] = value;
    }
    return record;
  });
  const warning = missing.length > 0 ? `order_sn not found: ${missing.join(',')}` : undefined;
  return ok({ order_list: orderList }, warning);
}

export function getItemList(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  const offset = params.int('offset', { min: 0, max: 1_000_000, required: true });
  const pageSize = params.int('page_size', { min: 1, max: 100, required: true });
  // Repeated (item_status=NORMAL&item_status=BANNED), as the platform documents it: `NORMAL,BANNED` is one unknown
  // status there, so it is here too.
  const statuses = params.requiredList('item_status', 'repeated', ITEM_STATUSES.length);
  if (!params.error && statuses.some((status) => !(ITEM_STATUSES as readonly string[]).includes(status))) {
    params.fail(`item_status must be among ${ITEM_STATUSES.join(', ')}.`);
  }
  const from = params.seconds('update_time_from', false);
  const to = params.seconds('update_time_to', false);
  if (!params.error && from !== undefined && to !== undefined && from > to) {
    params.fail('update_time_from must not be later than update_time_to.');
  }
  if (params.error) return params.error;
  const matching = dataOf(ctx).items.filter(
    (item) =>
      statuses.includes(item.item_status) &&
      (from === undefined || item.update_time >= from) &&
      (to === undefined || item.update_time <= to),
  );
  const page = matching.slice(offset, offset + pageSize);
  const hasNext = offset + page.length < matching.length;
  return ok({
    item: page.map((item) => ({ item_id: item.item_id, item_status: item.item_status, update_time: item.update_time })),
    total_count: matching.length,
    has_next_page: hasNext,
    next_offset: hasNext ? offset + page.length : 0,
  });
}

function baseInfo(item: ItemModel, currency: string): object {
  return {
    item_id: item.item_id,
    category_id: item.category_id,
    item_name: item.item_name,
    item_sku: item.item_sku,
    item_status: item.item_status,
    create_time: item.create_time,
    update_time: item.update_time,
    has_model: false,
    condition: 'NEW',
    price_info: [
      {
        currency,
        original_price: item.price,
        current_price: item.price,
      },
    ],
    stock_info_v2: { summary_info: { total_reserved_stock: 0, total_available_stock: item.stock } },
  };
}

export function getItemBaseInfo(ctx: MarketCallContext): MarketResult {
  // The reference gives no form for item_id_list: comma-joined and repeated are both accepted.
  const ids = ctx.params.idList('item_id_list', 'either', 50);
  if (ctx.params.error) return ctx.params.error;
  const byId = new Map(dataOf(ctx).items.map((item) => [item.item_id, item]));
  const found = ids.flatMap((id) => {
    const item = byId.get(id);
    return item ? [baseInfo(item, ctx.shop.currency)] : [];
  });
  return ok({ item_list: found });
}
