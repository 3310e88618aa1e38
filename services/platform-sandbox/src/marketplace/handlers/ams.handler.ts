import { dataOf, failed, type MarketCallContext } from '../call-context';
import { AMS_CHANNELS, type ConversionModel } from '../data/market-data.generator';
import { ok, type MarketResult } from '../envelope';
import { dayOf, formatDate } from '../params.reader';

const DAY_S = 86_400;
/** "3 months" of place_order_time, as the platform bounds the conversion report. */
const MAX_REPORT_SPAN_S = 92 * DAY_S;
const MAX_REPORT_ROWS = 10_000;
const PERIOD_TYPES = ['Day', 'Week', 'Month', 'Last7d', 'Last30d'] as const;

/** AMS money is strings with two decimals. */
function money(value: number): string {
  return value.toFixed(2);
}

/** The last complete day of AMS data: the day before the shop's anchor. */
function lastReportDay(ctx: MarketCallContext): number {
  return dataOf(ctx).anchor / DAY_S - 1;
}

function channelMatches(conversion: ConversionModel, channel: string | undefined): boolean {
  return channel === undefined || channel === 'AllChannel' || conversion.channel === channel;
}

export function getShopPerformance(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  const period = params.enumOf('period_type', PERIOD_TYPES, true);
  const start = params.date('start_date', 'YYYYMMDD');
  const end = params.date('end_date', 'YYYYMMDD');
  const orderType = params.enumOf('order_type', ['ConfirmedOrder', 'PlacedOrder'] as const, true);
  const channel = params.enumOf('channel', ['AllChannel', ...AMS_CHANNELS] as const, true);
  if (params.error || start === undefined || end === undefined) return failed(ctx);
  const span = end - start + 1;
  const startDate = new Date(start * 86_400_000);
  const endDate = new Date(end * 86_400_000);
  const wellFormed =
    start <= end &&
    ((period === 'Day' && span === 1) ||
      (period === 'Week' && span === 7) ||
      (period === 'Last7d' && span === 7) ||
      (period === 'Last30d' && span === 30) ||
      (period === 'Month' &&
        startDate.getUTCDate() === 1 &&
        startDate.getUTCMonth() === endDate.getUTCMonth() &&
        startDate.getUTCFullYear() === endDate.getUTCFullYear()));
  if (!wellFormed) return paramFail(ctx, `start_date and end_date do not match period_type ${period}.`);
  if (end > lastReportDay(ctx)) return paramFail(ctx, 'end_date is later than the last report date.');

  const rows = dataOf(ctx).conversions.filter((conversion) => {
    const day = dayOf(conversion.place_order_time);
    return (
      day >= start &&
      day <= end &&
      channelMatches(conversion, channel) &&
      (orderType === 'PlacedOrder' || conversion.order_status !== 'Cancelled')
    );
  });
  const sales = rows.reduce((total, row) => total + row.lines.reduce((sum, line) => sum + line.amount, 0), 0);
  const commission = rows.reduce((total, row) => total + row.lines.reduce((sum, line) => sum + line.commission, 0), 0);
  const buyers = rows.length;
  return ok({
    sales: money(sales),
    gross_item_sold: rows.reduce((total, row) => total + row.lines.reduce((sum, line) => sum + line.qty, 0), 0),
    orders: rows.length,
    clicks: rows.length * 17 + span * 40,
    est_commission: money(commission),
    roi: commission === 0 ? '0.00' : money(sales / commission),
    total_buyers: buyers,
    new_buyers: rows.filter((row) => row.buyer_type === 'New').length,
    fetched_date_range: `${formatDate(start, 'YYYYMMDD')}-${formatDate(end, 'YYYYMMDD')}`,
  });
}

function paramFail(ctx: MarketCallContext, message: string): MarketResult {
  ctx.params.fail(message);
  return failed(ctx);
}

export function getConversionReport(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  const pageNo = params.int('page_no', { min: 1, max: MAX_REPORT_ROWS, fallback: 1 });
  const pageSize = params.int('page_size', { min: 1, max: 500, fallback: 20 });
  const from = params.seconds('place_order_time_start', true) ?? 0;
  const to = params.seconds('place_order_time_end', true) ?? 0;
  if (params.error) return params.error;
  if (pageNo * pageSize > MAX_REPORT_ROWS) return paramFail(ctx, 'page_no * page_size must not exceed 10000.');
  if (from > to) return paramFail(ctx, 'place_order_time_start must not be later than place_order_time_end.');
  if (to - from > MAX_REPORT_SPAN_S) return paramFail(ctx, 'The place_order_time range should be within 3 months.');

  const matching = dataOf(ctx).conversions.filter(
    (conversion) => conversion.place_order_time >= from && conversion.place_order_time <= to,
  );
  const offset = (pageNo - 1) * pageSize;
  const page = matching.slice(offset, offset + pageSize);
  return ok({
    list: page.map((conversion) => ({
      order_sn: conversion.order_sn,
      order_status: conversion.order_status,
      place_order_time: conversion.place_order_time,
      affiliate_id: conversion.affiliate_id,
      affiliate_name: conversion.affiliate_name,
      channel: conversion.channel,
      buyer_type: conversion.buyer_type,
      items: conversion.lines.map((line) => ({
        item_id: line.item.item_id,
        item_name: line.item.item_name,
        qty: line.qty,
        item_price: money(line.item.price),
        actual_amount: money(line.amount),
        item_commission: money(line.commission),
      })),
    })),
    total_count: matching.length,
    has_more: offset + page.length < matching.length,
  });
}

export function getPerformanceDataUpdateTime(ctx: MarketCallContext): MarketResult {
  ctx.params.enumOf('marker_type', ['AmsMarker'] as const, true);
  if (ctx.params.error) return ctx.params.error;
  return ok({ last_report_date: formatDate(lastReportDay(ctx), 'YYYY-MM-DD') });
}
