import { AD_COUNTER } from '../data/delivery.generator';
import { GMV_COUNTER } from '../gmv-max/gmv-max.generator';

/** count: integer string; amount: cents shown as "123.45"; decimal: a ratio shown with 2 decimals. */
export type MetricFormat = 'count' | 'amount' | 'decimal';

export interface MetricDef {
  value(counters: readonly number[]): number;
  format: MetricFormat;
}

export type MetricCatalogue = ReadonlyMap<string, MetricDef>;

const at = (counters: readonly number[], index: number): number => counters[index] ?? 0;
const count = (index: number): MetricDef => ({ format: 'count', value: (c) => at(c, index) });
const amount = (index: number): MetricDef => ({ format: 'amount', value: (c) => at(c, index) });
/** numerator / denominator x scale; 0 when the denominator is 0 (the platform shows "0.00"). */
const ratio = (numerator: (c: readonly number[]) => number, denominator: number, scale = 1): MetricDef => ({
  format: 'decimal',
  value: (c) => (at(c, denominator) === 0 ? 0 : (numerator(c) * scale) / at(c, denominator)),
});
const per = (index: number) => (c: readonly number[]) => at(c, index);
const money = (index: number) => (c: readonly number[]) => at(c, index) / 100;

const A = AD_COUNTER;
/** Reach is not additive; a frequency that grows slowly with volume keeps it plausible at every grouping. */
const reach = (c: readonly number[]): number => {
  const impressions = at(c, A.impressions);
  return Math.round(impressions / (1 + 0.12 * Math.log1p(impressions / 1000)));
};

/** Metrics of /report/integrated/get/ (BASIC, AUDIENCE and BC reports). */
export const AD_METRICS: MetricCatalogue = new Map<string, MetricDef>([
  ['spend', amount(A.spend_cents)],
  ['impressions', count(A.impressions)],
  ['clicks', count(A.clicks)],
  ['ctr', ratio(per(A.clicks), A.impressions, 100)],
  ['cpc', ratio(money(A.spend_cents), A.clicks)],
  ['cpm', ratio(money(A.spend_cents), A.impressions, 1000)],
  ['reach', { format: 'count', value: reach }],
  ['frequency', { format: 'decimal', value: (c) => (reach(c) === 0 ? 0 : at(c, A.impressions) / reach(c)) }],
  [
    'cost_per_1000_reached',
    { format: 'decimal', value: (c) => (reach(c) === 0 ? 0 : (at(c, A.spend_cents) / 100 / reach(c)) * 1000) },
  ],
  ['conversion', count(A.conversion)],
  ['cost_per_conversion', ratio(money(A.spend_cents), A.conversion)],
  ['conversion_rate', ratio(per(A.conversion), A.clicks, 100)],
  ['conversion_rate_v2', ratio(per(A.conversion), A.impressions, 100)],
  ['result', count(A.conversion)],
  ['cost_per_result', ratio(money(A.spend_cents), A.conversion)],
  ['result_rate', ratio(per(A.conversion), A.impressions, 100)],
  ['video_play_actions', count(A.video_play_actions)],
  ['video_watched_2s', count(A.video_watched_2s)],
  ['video_watched_6s', count(A.video_watched_6s)],
  ['video_views_p25', count(A.video_views_p25)],
  ['video_views_p50', count(A.video_views_p50)],
  ['video_views_p75', count(A.video_views_p75)],
  ['video_views_p100', count(A.video_views_p100)],
  ['likes', count(A.likes)],
  ['comments', count(A.comments)],
  ['shares', count(A.shares)],
  ['follows', count(A.follows)],
  ['profile_visits', count(A.profile_visits)],
  [
    'engagements',
    {
      format: 'count',
      value: (c) => at(c, A.clicks) + at(c, A.likes) + at(c, A.comments) + at(c, A.shares) + at(c, A.follows),
    },
  ],
  ['complete_payment', count(A.complete_payment)],
  ['total_complete_payment_rate', amount(A.complete_payment_value_cents)],
  ['cost_per_complete_payment', ratio(money(A.spend_cents), A.complete_payment)],
  ['value_per_complete_payment', ratio(money(A.complete_payment_value_cents), A.complete_payment)],
  ['complete_payment_roas', ratio(per(A.complete_payment_value_cents), A.spend_cents)],
]);

const G = GMV_COUNTER;

/** Metrics of /gmv_max/report/get/. */
export const GMV_METRICS: MetricCatalogue = new Map<string, MetricDef>([
  ['cost', amount(G.cost_cents)],
  ['net_cost', amount(G.net_cost_cents)],
  ['orders', count(G.orders)],
  ['cost_per_order', ratio(money(G.cost_cents), G.orders)],
  ['gross_revenue', amount(G.gross_revenue_cents)],
  ['roi', ratio(per(G.gross_revenue_cents), G.cost_cents)],
  ['product_impressions', count(G.product_impressions)],
  ['product_clicks', count(G.product_clicks)],
  ['product_click_rate', ratio(per(G.product_clicks), G.product_impressions, 100)],
  ['ad_conversion_rate', ratio(per(G.orders), G.product_clicks, 100)],
  ['live_views', count(G.live_views)],
  ['live_follows', count(G.live_follows)],
  ['cost_per_live_view', ratio(money(G.cost_cents), G.live_views)],
]);

/** Every metric value is a string on the wire (spec 2.4). */
export function formatMetric(def: MetricDef, counters: readonly number[]): string {
  const value = def.value(counters);
  switch (def.format) {
    case 'count':
      return String(Math.round(value));
    case 'amount':
      return (value / 100).toFixed(2);
    case 'decimal':
      return Number.isFinite(value) ? value.toFixed(2) : '0.00';
  }
}
