import type { EndpointSpec, ParamValue } from '@gateway/catalogue';
import { isoDay } from '../../date-range.extractor';
import { resolvePeriod } from '../../period.resolver';
import type { BuiltParams } from '../../suggestion.plugin';
import type { MissingParam } from '../../suggestion.validator';

const DAY_SECONDS = 86_400;
/** Campaigns, ad groups and keywords per page: well under the assistant's answer size. */
const LIST_PAGE_SIZE = 100;
/** Report rows per page: one row per campaign, so one page holds every campaign of an organization. */
const REPORT_PAGE_SIZE = 1000;

type Granularity = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY';

/** Longest date range per granularity (docs/providers.md, search-ads; the platform refuses longer ones). */
const MAX_DAYS: Readonly<Record<Granularity | 'NONE', number>> = {
  HOURLY: 7,
  DAILY: 90,
  WEEKLY: 365,
  MONTHLY: 730,
  NONE: 366,
};

const GRANULARITY_WORDS: readonly [Granularity, RegExp][] = [
  ['HOURLY', /\bhourly\b|\b(?:per|by|each|every)\s+hours?\b|\bhour[- ]by[- ]hour\b/],
  [
    'DAILY',
    /\bdaily\b|\b(?:per|by|each|every)\s+(?:day|date)s?\b|\bday[- ]by[- ]day\b|\bday[- ]over[- ]day\b|\btrends?\b|\bover time\b/,
  ],
  ['WEEKLY', /\bweekly\b|\b(?:per|by|each|every)\s+weeks?\b|\bweek[- ]by[- ]week\b/],
  ['MONTHLY', /\bmonthly\b|\b(?:per|by|each|every)\s+months?\b|\bmonth[- ]by[- ]month\b/],
];

/** Report metrics (as the platform names them) to sort by, first asked first: spend leads when asked. */
const ORDER_METRICS: readonly [string, RegExp][] = [
  ['localSpend', /\bspend\b|\bspent\b|\bspending\b|\bcosts?\b(?!\s+per)/],
  ['totalInstalls', /\binstalls?\b|\bdownloads?\b/],
  ['taps', /\btaps?\b|\btapped\b/],
  ['impressions', /\bimpressions?\b|\bimps\b/],
];

const PATH_IDS: Readonly<Record<string, { pattern: RegExp; howToGet: string }>> = {
  campaignId: {
    pattern: /\bcampaign(?:\s+id)?\s*(?:#|no\.?|number)?\s*:?\s*(\d{1,20})\b/,
    howToGet:
      'a campaign id (digits) from /api/v5/campaigns (call_endpoint; data[].id): put it in the path in place of ' +
      '{campaignId}, e.g. /api/v5/campaigns/1234567890/adgroups',
  },
  adgroupId: {
    pattern: /\bad[ _-]?group(?:\s+id)?\s*(?:#|no\.?|number)?\s*:?\s*(\d{1,20})\b/,
    howToGet:
      'an ad group id (digits) from /api/v5/campaigns/{campaignId}/adgroups (call_endpoint with the campaign id in ' +
      'the path; data[].id): put it in the path in place of {adgroupId}',
  },
};

/**
 * search-ads (docs/providers.md): lists page by limit/offset, ids go in the path, and the campaign report is a POST
 * whose JSON body holds the dates (YYYY-MM-DD), the granularity (left out for totals) and selector.pagination. Only
 * values the catalogue allows are produced; the caller checks them with validateParams and validateBody.
 */
export function buildSearchAdsParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams {
  const text = question.toLowerCase();
  const notes: string[] = [];
  const params: Record<string, ParamValue> = {};
  const { path, pathMissing } = concretePath(endpoint.path, text);
  if (endpoint.path === '/api/v5/reports/campaigns') {
    return { params, body: reportBody(text, question, today, notes), pathMissing, notes };
  }
  if (endpoint.params.some((param) => param.name === 'limit')) {
    params.limit = LIST_PAGE_SIZE;
    params.offset = 0;
    notes.push(
      `Page by raising offset by limit (${LIST_PAGE_SIZE}) while offset + limit < pagination.totalResults of the answer.`,
    );
  }
  if (pathMissing.length > 0) {
    notes.push(
      `The path takes ids, digits only: replace ${pathMissing.map((m) => `{${m.name}}`).join(' and ')} in ` +
        `${endpoint.path} with real ids before calling (call_endpoint's path is the concrete path).`,
    );
  }
  return { params, ...(path !== endpoint.path ? { path } : {}), pathMissing, notes };
}

/** The template with the ids the question names; the ones it does not name are reported as missing. */
function concretePath(template: string, text: string): { path: string; pathMissing: MissingParam[] } {
  const pathMissing: MissingParam[] = [];
  const path = template.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    const known = PATH_IDS[name];
    const id = known?.pattern.exec(text)?.[1];
    if (id) return id;
    pathMissing.push({ name, howToGet: known?.howToGet ?? `an id (digits) to put in the path in place of ${whole}` });
    return whole;
  });
  return { path: pathMissing.length > 0 ? template : path, pathMissing };
}

function reportBody(text: string, question: string, today: Date, notes: string[]): Record<string, unknown> {
  let granularity = GRANULARITY_WORDS.find(([, pattern]) => pattern.test(text))?.[0];
  const todayDay = Math.floor(today.getTime() / (DAY_SECONDS * 1000));
  let { start, end } = resolvePeriod(question, today, notes);
  // The platform refuses a start in the future.
  if (start > todayDay) start = end = todayDay;
  if (end > todayDay) end = todayDay;
  if (granularity === 'HOURLY' && end - start + 1 > MAX_DAYS.HOURLY) {
    granularity = 'DAILY';
    notes.push(`HOURLY allows ${MAX_DAYS.HOURLY} days per report: the suggestion uses DAILY instead.`);
  }
  const maxDays = MAX_DAYS[granularity ?? 'NONE'];
  if (end - start + 1 > maxDays) {
    start = end - maxDays + 1;
    notes.push(
      `A report ${granularity ? `with granularity ${granularity}` : 'of totals'} spans at most ${maxDays} days: the ` +
        'suggestion covers the last ones; ask for the earlier days in further calls.',
    );
  }
  const orderBy = ORDER_METRICS.find(([, pattern]) => pattern.test(text))?.[0];
  const campaignIds = [...new Set([...text.matchAll(/\b\d{6,20}\b/g)].map((match) => match[0]))].slice(0, 100);
  const selector: Record<string, unknown> = {
    ...(orderBy ? { orderBy: [{ field: orderBy, sortOrder: 'DESCENDING' }] } : {}),
    ...(campaignIds.length > 0 ? { conditions: [{ field: 'campaignId', operator: 'IN', values: campaignIds }] } : {}),
    pagination: { offset: 0, limit: REPORT_PAGE_SIZE },
  };
  const body: Record<string, unknown> = {
    startTime: isoDay(start),
    endTime: isoDay(end),
    ...(granularity ? { granularity } : {}),
    timeZone: 'UTC',
    selector,
    returnRowTotals: true,
    returnGrandTotals: true,
    returnRecordsWithNoMetrics: false,
  };
  notes.push(
    granularity
      ? `One row per campaign with a ${granularity.toLowerCase()} breakdown (row[].granularity[]) and its totals (row[].total).`
      : 'No breakdown over time named: one row per campaign with its totals for the period (row[].total).',
  );
  if (orderBy) notes.push(`Rows sorted by ${orderBy}, highest first.`);
  notes.push(
    'Money is {amount, currency} in the organization currency. Page with selector.pagination.offset while ' +
      'pagination.totalResults says more rows follow.',
  );
  return body;
}
