import type { EndpointSpec, ParamValue } from '@gateway/catalogue';
import { epochDay, extractDateRange, isoDay } from '../../date-range.extractor';
import { resolvePeriod } from '../../period.resolver';
import type { BuiltParams } from '../../suggestion.plugin';

const DAY_SECONDS = 86_400;
/** Records per page that stay well under the assistant's answer size (orders carry line items). */
const SHOP_PAGE_SIZE = 50;

const ORDER_STATUS_WORDS: readonly [string, RegExp][] = [
  ['AWAITING_SHIPMENT', /\bawaiting shipment\b|\bto ship\b|\bnot (?:yet )?shipped\b|\bunshipped\b/],
  ['AWAITING_COLLECTION', /\bawaiting collection\b|\bawaiting pick-?up\b/],
  ['IN_TRANSIT', /\bin transit\b|\bshipped\b/],
  ['DELIVERED', /\bdelivered\b/],
  ['COMPLETED', /\bcompleted\b/],
  ['CANCELLED', /\bcancell?ed\b|\bcancell?ations?\b/],
  ['UNPAID', /\bunpaid\b|\bnot paid\b/],
  ['ON_HOLD', /\bon hold\b/],
];

const PRODUCT_STATUS_WORDS: readonly [string, RegExp][] = [
  ['DRAFT', /\bdrafts?\b/],
  ['PENDING', /\bpending\b|\bin review\b/],
  ['FAILED', /\bfailed\b|\brejected\b/],
  ['SELLER_DEACTIVATED', /\bdeactivated\b|\binactive\b/],
  ['FREEZE', /\bfrozen\b|\bfreeze\b/],
  ['DELETED', /\bdeleted\b/],
  ['ALL', /\ball products\b|\bevery product\b/],
];

/**
 * video-shop (docs/providers.md): the searches take their filters as a JSON body with unix-second times, the
 * performance endpoint takes YYYY-MM-DD days with an exclusive end, the statements need sort_field. Only values the
 * catalogue allows are produced; the caller checks them with validateParams and validateBody.
 */
export function buildVideoShopParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams {
  const text = question.toLowerCase();
  const notes: string[] = [];
  const names = new Set(endpoint.params.map((param) => param.name));
  const params: Record<string, ParamValue> = {};
  switch (endpoint.path) {
    case '/order/202309/orders/search': {
      params.page_size = SHOP_PAGE_SIZE;
      params.sort_field = 'create_time';
      params.sort_order = 'DESC';
      const days = resolvePeriod(question, today, notes);
      const body: Record<string, unknown> = {
        create_time_ge: days.start * DAY_SECONDS,
        create_time_lt: (days.end + 1) * DAY_SECONDS,
      };
      const status = ORDER_STATUS_WORDS.find(([, pattern]) => pattern.test(text))?.[0];
      if (status) body.order_status = status;
      notes.push('Page with page_token = data.next_page_token until it is empty.');
      return { params, body, notes };
    }
    case '/product/202309/products/search':
    case '/product/202502/products/search': {
      params.page_size = SHOP_PAGE_SIZE;
      const status = PRODUCT_STATUS_WORDS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'ACTIVATE';
      if (/\b(?:low|out of|no)\s+(?:stock|inventory)\b|\brestock\b|\bsold out\b/.test(text)) {
        notes.push(
          'The search has no stock filter: the suggestion lists active products; read ' +
            'skus[].inventory[].quantity in the answer to find the low ones.',
        );
      }
      notes.push('Page with page_token = data.next_page_token until it is empty.');
      return { params, body: { status }, notes };
    }
    case '/analytics/202405/shop/performance': {
      const days = resolvePeriod(question, today, notes);
      params.start_date_ge = isoDay(days.start);
      params.end_date_lt = isoDay(days.end + 1);
      if (/\bdaily\b|\bby day\b|\bper day\b|\beach day\b|\bday[- ]by[- ]day\b|\btrends?\b|\bover time\b/.test(text)) {
        params.granularity = '1D';
      }
      notes.push('end_date_lt is exclusive: the day after the last day asked for.');
      return { params, notes };
    }
    case '/finance/202309/statements': {
      params.sort_field = 'statement_time';
      params.sort_order = 'DESC';
      params.page_size = SHOP_PAGE_SIZE;
      const found = extractDateRange(question, today);
      if (found) {
        params.statement_time_ge = epochDay(found.start) * DAY_SECONDS;
        params.statement_time_lt = (epochDay(found.end) + 1) * DAY_SECONDS;
        notes.push(`Period "${found.matched}": ${found.start} to ${found.end} (UTC calendar days, unix seconds).`);
      }
      return { params, notes };
    }
    case '/order/202309/orders': {
      const ids = [...new Set([...text.matchAll(/\b\d{10,20}\b/g)].map((match) => match[0]))].slice(0, 50);
      if (ids.length > 0) params.ids = ids;
      return { params, notes };
    }
    default:
      if (names.has('page_size')) params.page_size = SHOP_PAGE_SIZE;
      return { params, notes };
  }
}
