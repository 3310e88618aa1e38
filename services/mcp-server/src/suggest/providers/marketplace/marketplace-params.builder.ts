import type { EndpointSpec, ParamValue } from '@gateway/catalogue';
import { epochDay, extractDateRange } from '../../date-range.extractor';
import { resolvePeriod } from '../../period.resolver';
import type { BuiltParams } from '../../suggestion.plugin';

const DAY_SECONDS = 86_400;
/** docs/providers.md, marketplace: order list time_from..time_to at most 15 days. */
const MAX_ORDER_DAYS = 15;
/** Ads performance: "within one month", which the platform counts as 31 days with both ends. */
const MAX_ADS_DAYS = 31;
/** Conversion report: place_order_time within "3 months" (92 days). */
const MAX_CONVERSION_DAYS = 92;
/** Orders and items per page (the platform's maximum; the records are small). */
const SELLER_PAGE_SIZE = 100;
/** Conversions carry affiliate and items: a page that stays well under the assistant's answer size. */
const CONVERSION_PAGE_SIZE = 100;
const CAMPAIGN_PAGE_SIZE = 100;

const ORDER_STATUS_WORDS: readonly [string, RegExp][] = [
  ['READY_TO_SHIP', /\bready to ship\b|\bto ship\b|\bnot (?:yet )?shipped\b|\bunshipped\b|\bawaiting shipment\b/],
  ['UNPAID', /\bunpaid\b|\bnot paid\b/],
  ['IN_CANCEL', /\bin cancel\b|\bcancell?ation requests?\b/],
  ['CANCELLED', /\bcancell?ed\b/],
  ['COMPLETED', /\bcompleted\b|\bdelivered\b/],
  ['SHIPPED', /\bshipped\b|\bin transit\b/],
  ['PROCESSED', /\bprocessed\b/],
];

const ITEM_STATUS_WORDS: readonly [string, RegExp][] = [
  ['BANNED', /\bbanned\b|\bblocked\b/],
  ['UNLIST', /\bunlist(?:ed)?\b|\bhidden\b|\bdelisted\b/],
  ['REVIEWING', /\breview(?:ing)?\b|\bpending\b/],
  ['SELLER_DELETE', /\bdeleted\b/],
];

const CHANNEL_WORDS: readonly [string, RegExp][] = [
  ['SocialMedia', /\bsocial(?: media)?\b/],
  ['ShopeeVideo', /\bvideos?\b/],
  ['LiveStreaming', /\blive(?: ?stream(?:ing|s)?)?\b/],
];

/**
 * The three marketplace apps (docs/providers.md): the seller app takes unix seconds (order list at most 15 days),
 * the ads app DD-MM-YYYY days (at most one month), the affiliate app YYYYMMDD days that must fit period_type and end
 * by the last report date (yesterday), and unix seconds for the conversion report (at most 3 months). Only values the
 * catalogue allows are produced; the caller checks them with validateParams.
 */
export function buildMarketplaceParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams {
  const text = question.toLowerCase();
  const notes: string[] = [];
  const params: Record<string, ParamValue> = {};
  const todayDay = Math.floor(today.getTime() / (DAY_SECONDS * 1000));
  switch (endpoint.path) {
    case '/api/v2/order/get_order_list': {
      const days = period(question, today, notes, MAX_ORDER_DAYS, 'The order list spans at most 15 days');
      params.time_range_field = /\bupdated?\b|\bchanged?\b|\bmodified\b/.test(text) ? 'update_time' : 'create_time';
      params.time_from = days.start * DAY_SECONDS;
      params.time_to = (days.end + 1) * DAY_SECONDS - 1;
      params.page_size = SELLER_PAGE_SIZE;
      const status = ORDER_STATUS_WORDS.find(([, pattern]) => pattern.test(text))?.[0];
      if (status) params.order_status = status;
      notes.push('Times are unix seconds. Page with cursor = response.next_cursor while response.more is true.');
      return { params, notes };
    }
    case '/api/v2/order/get_order_detail': {
      const orderSns = [...new Set([...question.matchAll(/\b\d{6}[0-9A-Z]{8,}\b/g)].map((m) => m[0]))].slice(0, 50);
      if (orderSns.length > 0) params.order_sn_list = orderSns;
      params.response_optional_fields = 'item_list,total_amount';
      return { params, notes };
    }
    case '/api/v2/product/get_item_list': {
      params.offset = 0;
      params.page_size = SELLER_PAGE_SIZE;
      const statuses = ITEM_STATUS_WORDS.filter(([, pattern]) => pattern.test(text)).map(([status]) => status);
      params.item_status = statuses.length > 0 ? statuses : ['NORMAL'];
      if (statuses.length === 0) notes.push('No item status named: active items (item_status NORMAL).');
      notes.push('Page with offset = response.next_offset while response.has_next_page is true.');
      return { params, notes };
    }
    case '/api/v2/product/get_item_base_info': {
      const ids = numericIds(text).slice(0, 50);
      if (ids.length > 0) params.item_id_list = ids;
      return { params, notes };
    }
    case '/api/v2/ads/get_all_cpc_ads_daily_performance':
    case '/api/v2/ads/get_product_campaign_daily_performance': {
      const days = period(question, today, notes, MAX_ADS_DAYS, 'Ads performance spans at most one month');
      params.start_date = ddmmyyyy(days.start);
      params.end_date = ddmmyyyy(days.end);
      notes.push('Dates are DD-MM-YYYY; the answer has one row per day.');
      if (endpoint.path === '/api/v2/ads/get_product_campaign_daily_performance') {
        const ids = numericIds(text).slice(0, 100);
        if (ids.length > 0) params.campaign_id_list = ids;
      }
      return { params, notes };
    }
    case '/api/v2/ads/get_product_level_campaign_id_list': {
      params.ad_type = /\bauto(?:matic)?\b/.test(text) ? 'auto' : /\bmanual\b/.test(text) ? 'manual' : 'all';
      params.offset = 0;
      params.limit = CAMPAIGN_PAGE_SIZE;
      notes.push('Page by raising offset by limit while response.has_next_page is true.');
      return { params, notes };
    }
    case '/api/v2/ams/get_performance_data_update_time':
      params.marker_type = 'AmsMarker';
      return { params, notes };
    case '/api/v2/ams/get_shop_performance': {
      Object.assign(params, affiliatePeriod(question, todayDay, notes));
      params.order_type = /\bplaced\b|\ball orders\b|\bincluding cancell?ed\b/.test(text)
        ? 'PlacedOrder'
        : 'ConfirmedOrder';
      params.channel = CHANNEL_WORDS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'AllChannel';
      notes.push(
        `Orders counted: ${String(params.order_type)}; channel ${String(params.channel)}. Money comes as strings.`,
      );
      return { params, notes };
    }
    case '/api/v2/ams/get_conversion_report': {
      const days = period(question, today, notes, MAX_CONVERSION_DAYS, 'The conversion report spans at most 3 months');
      params.page_no = 1;
      params.page_size = CONVERSION_PAGE_SIZE;
      params.place_order_time_start = days.start * DAY_SECONDS;
      params.place_order_time_end = (days.end + 1) * DAY_SECONDS;
      notes.push('Times are unix seconds. Page with page_no = 2, 3, ... while response.has_more is true.');
      return { params, notes };
    }
    default:
      return { params, notes };
  }
}

/** The UTC days the question names (both ends included), at most `maxDays` (the latest ones are kept). */
function period(
  question: string,
  today: Date,
  notes: string[],
  maxDays: number,
  limit: string,
): { start: number; end: number } {
  const days = resolvePeriod(question, today, notes);
  const end = days.end;
  let start = days.start;
  if (end - start + 1 > maxDays) {
    start = end - maxDays + 1;
    notes.push(
      `${limit}: the suggestion covers the last ${maxDays} days of the period; ask for the rest in further calls.`,
    );
  }
  return { start, end };
}

/**
 * get_shop_performance: the dates must fit period_type (a day, 7 days, 30 days, or days of one calendar month) and
 * end at most on the last report date, which is yesterday (get_performance_data_update_time tells exactly).
 */
function affiliatePeriod(question: string, todayDay: number, notes: string[]): Record<string, string> {
  const found = extractDateRange(question, new Date(todayDay * DAY_SECONDS * 1000));
  const yesterday = todayDay - 1;
  const lastN = (days: number, type: string, why: string) => {
    notes.push(why);
    return { period_type: type, start_date: yyyymmdd(yesterday - days + 1), end_date: yyyymmdd(yesterday) };
  };
  if (!found) {
    return lastN(7, 'Last7d', 'No period named: the last 7 days up to yesterday (the last report date).');
  }
  const start = epochDay(found.start);
  let end = epochDay(found.end);
  if (end > yesterday) {
    end = yesterday;
    notes.push('Affiliate data ends yesterday (the last report date): the period ends there.');
  }
  const span = end - start + 1;
  const days = { start_date: yyyymmdd(start), end_date: yyyymmdd(end) };
  if (span === 30 && end === yesterday) return { period_type: 'Last30d', ...days };
  if (span === 7) return { period_type: end === yesterday ? 'Last7d' : 'Week', ...days };
  if (span === 1) return { period_type: 'Day', ...days };
  const first = new Date(start * DAY_SECONDS * 1000);
  const last = new Date(end * DAY_SECONDS * 1000);
  if (span > 0 && first.getUTCDate() === 1 && first.getUTCMonth() === last.getUTCMonth()) {
    return { period_type: 'Month', ...days };
  }
  const why =
    `Period "${found.matched}" is not one the affiliate report takes (a day, a week, a calendar month, the last 7 or ` +
    '30 days): ';
  return span > 7
    ? lastN(30, 'Last30d', `${why}the suggestion uses the last 30 days up to yesterday.`)
    : lastN(7, 'Last7d', `${why}the suggestion uses the last 7 days up to yesterday.`);
}

/** Long digit runs in the question: item or campaign ids. */
function numericIds(text: string): string[] {
  return [...new Set([...text.matchAll(/\b\d{6,20}\b/g)].map((match) => match[0]))];
}

function utcDate(day: number): { yyyy: string; mm: string; dd: string } {
  const iso = new Date(day * DAY_SECONDS * 1000).toISOString();
  return { yyyy: iso.slice(0, 4), mm: iso.slice(5, 7), dd: iso.slice(8, 10) };
}

function ddmmyyyy(day: number): string {
  const { yyyy, mm, dd } = utcDate(day);
  return `${dd}-${mm}-${yyyy}`;
}

function yyyymmdd(day: number): string {
  const { yyyy, mm, dd } = utcDate(day);
  return `${yyyy}${mm}${dd}`;
}
