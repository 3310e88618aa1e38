import type { EndpointSpec, ParamValue } from '@gateway/catalogue';
import { isoDay } from '../../date-range.extractor';
import { resolvePeriod } from '../../period.resolver';
import type { BuiltParams } from '../../suggestion.plugin';
import { extractReportTerms, type ReportLevel } from './report-terms.extractor';

const LEVELS: Readonly<Record<ReportLevel, { dataLevel: string; dimension: string }>> = {
  advertiser: { dataLevel: 'AUCTION_ADVERTISER', dimension: 'advertiser_id' },
  campaign: { dataLevel: 'AUCTION_CAMPAIGN', dimension: 'campaign_id' },
  adgroup: { dataLevel: 'AUCTION_ADGROUP', dimension: 'adgroup_id' },
  ad: { dataLevel: 'AUCTION_AD', dimension: 'ad_id' },
};

/** Longest spans of the platform per time dimension, both ends included (docs/providers.md). */
const MAX_DAYS_BY_DAY = 30;
const MAX_DAYS_WITHOUT_TIME = 365;
/** Report rows per page that usually stay under the assistant's answer size limit (a 1000-row page does not). */
const REPORT_PAGE_SIZE = 500;
const LIST_PAGE_SIZE = 100;

/**
 * video-ads: the date range, grouping (dimensions and data_level) and metrics for the reports, ids where the
 * question names them, and page sizes that suit assistants. What cannot be known from the question (advertiser_id,
 * store_ids) is left out for the caller to report as missing.
 */
export function buildVideoAdsParams(endpoint: EndpointSpec, question: string, today: Date): BuiltParams {
  const terms = extractReportTerms(question);
  const notes: string[] = [];
  const params: Record<string, ParamValue> = {};
  const names = new Set(endpoint.params.map((param) => param.name));
  if (names.has('advertiser_id') && terms.ids[0]) params.advertiser_id = terms.ids[0];
  if (names.has('advertiser_ids') && terms.ids.length > 0) params.advertiser_ids = terms.ids.slice(0, 100);

  if (endpoint.path === '/v1.3/report/integrated/get/') {
    const level = LEVELS[terms.level ?? 'advertiser'];
    if (!terms.level) notes.push('No grouping named: rows are totals per advertiser (data_level AUCTION_ADVERTISER).');
    params.report_type = 'BASIC';
    params.data_level = level.dataLevel;
    const dates = dateParams(question, today, terms.time, notes);
    params.dimensions = terms.time
      ? [level.dimension, dates.time === 'hour' ? 'stat_time_hour' : 'stat_time_day']
      : [level.dimension];
    params.metrics = terms.metrics.length > 0 ? terms.metrics : ['spend', 'impressions', 'clicks', 'conversion'];
    if (terms.metrics.length === 0) notes.push('No metric named: spend, impressions, clicks and conversion.');
    params.start_date = dates.start;
    params.end_date = dates.end;
    params.page_size = REPORT_PAGE_SIZE;
  } else if (endpoint.path === '/v1.3/gmv_max/report/get/') {
    if (terms.ids[1]) params.store_ids = [terms.ids[1]];
    const dates = dateParams(question, today, terms.time, notes);
    const dimensions = [terms.level === 'campaign' ? 'campaign_id' : 'advertiser_id'];
    if (terms.time) dimensions.push(dates.time === 'hour' ? 'stat_time_hour' : 'stat_time_day');
    params.dimensions = dimensions;
    params.metrics = terms.gmvMetrics.length > 0 ? terms.gmvMetrics : ['cost', 'orders', 'gross_revenue', 'roi'];
    params.start_date = dates.start;
    params.end_date = dates.end;
    params.page_size = REPORT_PAGE_SIZE;
  } else if (names.has('page_size')) {
    params.page_size = LIST_PAGE_SIZE;
  }
  return { params, notes };
}

function dateParams(
  question: string,
  today: Date,
  time: 'day' | 'hour' | undefined,
  notes: string[],
): { start: string; end: string; time: 'day' | 'hour' | undefined } {
  const days = resolvePeriod(question, today, notes);
  let start = days.start;
  const end = days.end;
  let grain = time;
  if (grain === 'hour' && end > start) {
    grain = 'day';
    notes.push('stat_time_hour allows one day per request: the suggestion uses stat_time_day instead.');
  }
  if (grain === 'day' && end - start + 1 > MAX_DAYS_BY_DAY) {
    start = end - MAX_DAYS_BY_DAY + 1;
    notes.push(
      `stat_time_day allows ${MAX_DAYS_BY_DAY} days per request: the suggestion covers the last ${MAX_DAYS_BY_DAY} ` +
        'days of the period; ask for the earlier days in further calls.',
    );
  }
  if (grain === undefined && end - start + 1 > MAX_DAYS_WITHOUT_TIME) {
    start = end - MAX_DAYS_WITHOUT_TIME + 1;
    notes.push(`A report spans at most ${MAX_DAYS_WITHOUT_TIME} days: the suggestion covers the last ones.`);
  }
  return { start: isoDay(start), end: isoDay(end), time: grain };
}
