/** The level of report rows a question asks for (spec 4.2 data_level and its id dimension). */
export type ReportLevel = 'advertiser' | 'campaign' | 'adgroup' | 'ad';
export type TimeGrain = 'day' | 'hour';

export interface ReportTerms {
  /** The finest entity the question groups by; undefined when it names none. */
  level?: ReportLevel;
  time?: TimeGrain;
  /** Metric names of the performance report (video-ads v1.3), in the order of the catalogue below. */
  metrics: string[];
  /** Metric names of the GMV Max report. */
  gmvMetrics: string[];
  /** Long digit strings: advertiser or store ids the question names. */
  ids: string[];
}

const GROUP = '(?:by|per|each|every|across|for each|for every|top|best|worst|which|split by|broken down by)';

// Finest first: a question about ads "in each campaign" wants ad rows.
const LEVELS: readonly [ReportLevel, RegExp][] = [
  [
    'ad',
    new RegExp(
      `\\b${GROUP}\\s+(?:\\w+\\s+)?ads?\\b(?![ _-]?groups?)|(?<!video[- ])\\bads\\b(?![ _-]?(?:groups?|accounts?|manager|spend))` +
        '|\\bad[- ]level\\b|\\bcreatives?\\b|\\bad_ids?\\b',
    ),
  ],
  ['adgroup', /\bad[ _-]?groups?\b|\badgroup_ids?\b|\bad sets?\b/],
  ['campaign', /\bcampaigns?\b|\bcampaign_ids?\b/],
  ['advertiser', new RegExp(`\\b${GROUP}\\s+(?:advertiser|ad account|account)s?\\b|\\badvertiser[- ]level\\b`)],
];

const TIME: readonly [TimeGrain, RegExp][] = [
  [
    'hour',
    new RegExp(`\\bhourly\\b|\\b${GROUP}\\s+hours?\\b|\\bhour[- ]by[- ]hour\\b|\\bstat_time_hour\\b|\\btime of day\\b`),
  ],
  [
    'day',
    new RegExp(
      `\\bdaily\\b|\\b${GROUP}\\s+(?:day|date)s?\\b|\\bday[- ]by[- ]day\\b|\\bday[- ]over[- ]day\\b|\\btrends?\\b|\\bover time\\b|\\bstat_time_day\\b|\\beach date\\b`,
    ),
  ],
];

/** Performance report metrics (names as the platform spells them) and the words that ask for them. */
const METRICS: readonly [string, RegExp][] = [
  ['spend', /\bspend\b|\bspent\b|\bspending\b|\bcosts?\b(?!\s+per)/],
  ['impressions', /\bimpressions?\b|\bimps\b|\bdelivery\b/],
  ['clicks', /(?<!per\s)\bclicks?\b(?![- ]?through)|\bclicked\b/],
  ['ctr', /\bctr\b|\bclick[- ]?through(?:[- ]rates?)?\b/],
  ['cpc', /\bcpc\b|\bcost per click\b/],
  ['cpm', /\bcpm\b|\bcost per (?:mille|thousand|1,?000)(?: impressions)?\b/],
  ['reach', /\breach\b|\bunique users\b/],
  ['conversion', /\bconversions?\b(?!\s+rate)|\bconverted\b|\bresults?\b|\bpurchases?\b/],
  ['cost_per_conversion', /\bcpa\b|\bcost per (?:conversion|result|acquisition|purchase)\b/],
  ['conversion_rate', /\bconversion rates?\b|\bcvr\b/],
];

const GMV_METRICS: readonly [string, RegExp][] = [
  ['cost', /\bspend\b|\bspent\b|\bcosts?\b(?!\s+per)/],
  ['orders', /\borders?\b|\bpurchases?\b/],
  ['gross_revenue', /\brevenue\b|\bgmv\b|\bsales\b|\bgross\b/],
  ['roi', /\broi\b|\broas\b|\breturn on\b/],
  ['cost_per_order', /\bcost per order\b/],
];

/** Reads grouping, time grain, metrics and ids from a question about a report. */
export function extractReportTerms(question: string): ReportTerms {
  const text = question.toLowerCase();
  const level = LEVELS.find(([, pattern]) => pattern.test(text))?.[0];
  const time = TIME.find(([, pattern]) => pattern.test(text))?.[0];
  const metrics = METRICS.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
  const gmvMetrics = GMV_METRICS.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
  const ids = [...new Set([...text.matchAll(/\b\d{10,20}\b/g)].map((match) => match[0]))];
  return { ...(level ? { level } : {}), ...(time ? { time } : {}), metrics, gmvMetrics, ids };
}
