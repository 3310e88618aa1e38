import { shopOf, type ShopCallContext } from '../call-context';
import { money, ORDER_STATUSES, SHIPPING_TYPES, type OrderModel } from '../data/shop-data.generator';
import { pageOf } from '../data/page-token';
import { ok, type ShopResult } from '../envelope';

const SORT_FIELDS = ['create_time', 'update_time'] as const;
const SORT_ORDERS = ['ASC', 'DESC'] as const;
const MAX_IDS = 50;

export function orderRecord(order: OrderModel, currency: string): object {
  return {
    id: order.id,
    status: order.status,
    create_time: order.create_time,
    update_time: order.update_time,
    ...(order.paid_time === undefined ? {} : { paid_time: order.paid_time }),
    shipping_type: order.shipping_type,
    payment: {
      currency,
      sub_total: money(order.subTotalCents),
      total_amount: money(order.totalCents),
      shipping_fee: money(order.shippingCents),
      tax: money(order.taxCents),
    },
    line_items: order.items.map((item) => ({
      id: item.id,
      sku_id: item.sku.id,
      product_id: item.product.id,
      product_name: item.product.title,
      seller_sku: item.sku.seller_sku,
      sale_price: money(item.sku.priceCents),
      original_price: money(item.originalCents),
      currency,
    })),
    buyer_email: order.buyer_email,
    user_id: order.user_id,
  };
}

/** POST /order/202309/orders/search: a read despite the method; filters in the body, paging in the query. */
export function searchOrders(ctx: ShopCallContext): ShopResult {
  const { params } = ctx;
  const pageSize = params.pageSize(true);
  const pageToken = params.string('page_token');
  const sortField = params.enumOf('sort_field', SORT_FIELDS, 'create_time');
  const sortOrder = params.enumOf('sort_order', SORT_ORDERS, 'DESC');
  const filter = {
    order_status: params.bodyEnum('order_status', ORDER_STATUSES),
    create_time_ge: params.bodySeconds('create_time_ge'),
    create_time_lt: params.bodySeconds('create_time_lt'),
    update_time_ge: params.bodySeconds('update_time_ge'),
    update_time_lt: params.bodySeconds('update_time_lt'),
    shipping_type: params.bodyEnum('shipping_type', SHIPPING_TYPES),
    buyer_user_id: params.bodyString('buyer_user_id'),
  };
  if (params.error) return params.error;

  const shop = shopOf(ctx);
  const data = ctx.services.world.shop(shop);
  const matching = data.orders.filter(
    (order) =>
      (filter.order_status === undefined || order.status === filter.order_status) &&
      (filter.create_time_ge === undefined || order.create_time >= filter.create_time_ge) &&
      (filter.create_time_lt === undefined || order.create_time < filter.create_time_lt) &&
      (filter.update_time_ge === undefined || order.update_time >= filter.update_time_ge) &&
      (filter.update_time_lt === undefined || order.update_time < filter.update_time_lt) &&
      (filter.shipping_type === undefined || order.shipping_type === filter.shipping_type) &&
      (filter.buyer_user_id === undefined || order.user_id === filter.buyer_user_id),
  );
  const direction = sortOrder === 'ASC' ? 1 : -1;
  matching.sort((a, b) => direction * (a[sortField] - b[sortField] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));

  const fingerprint = JSON.stringify(['orders', shop.id, sortField, sortOrder, filter]);
  const page = pageOf(matching, pageSize, pageToken, fingerprint);
  if (!page) return invalidPageToken(ctx);
  return ok({
    orders: page.items.map((order) => orderRecord(order, shop.currency)),
    next_page_token: page.nextPageToken,
    total_count: matching.length,
  });
}

/** GET /order/202309/orders?ids=a,b: the orders of this shop among the ids; unknown ids are left out. */
export function getOrders(ctx: ShopCallContext): ShopResult {
  const ids = ctx.params.idList('ids', MAX_IDS);
  if (ctx.params.error) return ctx.params.error;
  const shop = shopOf(ctx);
  const byId = new Map(ctx.services.world.shop(shop).orders.map((order) => [order.id, order]));
  const orders = ids.flatMap((id) => {
    const order = byId.get(id);
    return order ? [orderRecord(order, shop.currency)] : [];
  });
  return ok({ orders });
}

export function invalidPageToken(ctx: ShopCallContext): ShopResult {
  ctx.params.fail('page_token is invalid or does not belong to this query.');
  return ctx.params.error as ShopResult;
}
