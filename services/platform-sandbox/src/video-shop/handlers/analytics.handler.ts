import { epochDayToDate } from '../../video-ads/data/calendar';
import { shopOf, type ShopCallContext } from '../call-context';
import { localPerUsd, money, type OrderModel } from '../data/shop-data.generator';
import { ok, type ShopResult } from '../envelope';

const DAY = 86_400;
const MAX_SPAN_DAYS = 365;

interface Interval {
  start: number;
  end: number;
}

/** Paid orders count towards GMV unless they were cancelled afterwards. */
function counts(order: OrderModel): boolean {
  return order.paid_time !== undefined && order.status !== 'CANCELLED';
}

/**
 * GET /analytics/202405/shop/performance: GMV, orders, units and buyers per interval, derived from the same
 * generated orders the order paths serve, so the numbers add up across endpoints. Days are UTC days.
 */
export function shopPerformance(ctx: ShopCallContext): ShopResult {
  const { params } = ctx;
  const startDay = params.date('start_date_ge');
  const endDay = params.date('end_date_lt');
  const granularity = params.enumOf('granularity', ['ALL', '1D'] as const, 'ALL');
  const currency = params.enumOf('currency', ['USD', 'LOCAL'] as const, 'LOCAL');
  if (startDay !== undefined && endDay !== undefined) {
    if (endDay <= startDay) params.fail('end_date_lt must be after start_date_ge.');
    else if (endDay - startDay > MAX_SPAN_DAYS) params.fail(`the date range may span at most ${MAX_SPAN_DAYS} days.`);
  }
  if (params.error || startDay === undefined || endDay === undefined) return params.error as ShopResult;

  const shop = shopOf(ctx);
  const orders = ctx.services.world.shop(shop).orders.filter(counts);
  const intervals: Interval[] =
    granularity === 'ALL'
      ? [{ start: startDay, end: endDay }]
      : Array.from({ length: endDay - startDay }, (_, i) => ({ start: startDay + i, end: startDay + i + 1 }));
  const factor = currency === 'USD' ? 1 / localPerUsd(shop.currency) : 1;
  const currencyCode = currency === 'USD' ? 'USD' : shop.currency;

  return ok({
    performance: {
      intervals: intervals.map(({ start, end }) => {
        const inside = orders.filter((order) => order.create_time >= start * DAY && order.create_time < end * DAY);
        const gmvCents = inside.reduce((sum, order) => sum + order.totalCents, 0);
        return {
          start_date: epochDayToDate(start),
          end_date: epochDayToDate(end),
          gmv: { amount: money(Math.round(gmvCents * factor)), currency: currencyCode },
          orders: inside.length,
          units_sold: inside.reduce((sum, order) => sum + order.items.length, 0),
          buyers: new Set(inside.map((order) => order.user_id)).size,
        };
      }),
    },
  });
}
