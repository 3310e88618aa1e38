import type { LabelValues, Metric, Registry } from 'prom-client';

/** One labelled series, looked up once by its caller and then observed with no label work at all. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface SeriesState {
  labels: Record<string, string>;
  /** Observations per bucket, not cumulative; the last slot is above every bound (+Inf). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** One exported sample, shaped as prom-client's registry reads it from a metric. */
interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  /** The series' labels, apart from `le` (text rendering only). */
  sharedLabels?: Record<string, string>;
  value: number;
  /** Buckets carry prom-client's `exemplar: null` (exemplars are not enabled), so the JSON is the same. */
  exemplar?: null;
}

interface Exported {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: ExportedValue[];
}

/**
 * A Prometheus histogram for paths that observe thousands of times a second. prom-client's Histogram validates and
 * hashes the label object on every observe, even through `labels()` (about 1-2 % of edge-auth's and
 * provider-proxy's CPU per answer in saturated profiles); a series of this one adds to a bucket it already holds.
 * It exports exactly what a prom-client Histogram of the same name, help, labels and buckets would (text and JSON,
 * so node:cluster workers aggregate it the same way), and registers like one.
 */
export class TalliedHistogram<L extends string> {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly state = new Map<string, SeriesState>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    private readonly bounds: readonly number[],
  ) {
    if (bounds.some((bound, i) => i > 0 && bound <= bounds[i - 1]!)) {
      throw new Error(`histogram ${name}: bucket bounds must increase`);
    }
    registry.registerMetric(this as unknown as Metric<string>);
  }

  /** The series of these label values; keep it, since this lookup is what observe on it no longer does. */
  series(labels: LabelValues<L>): HistogramSeries {
    const values: Record<string, string> = {};
    for (const name of Object.keys(labels)) {
      if (!this.labelNames.includes(name as L)) throw new Error(`histogram ${this.name} has no label "${name}"`);
    }
    for (const name of this.labelNames) {
      const value = labels[name];
      if (value !== undefined) values[name] = String(value);
    }
    const key = JSON.stringify(this.labelNames.map((name) => values[name] ?? null));
    let state = this.state.get(key);
    if (state === undefined) {
      state = { labels: values, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.state.set(key, state);
    }
    const series = state;
    const bounds = this.bounds;
    return {
      observe(value: number): void {
        if (!Number.isFinite(value)) return;
        let slot = 0;
        while (slot < bounds.length && value > bounds[slot]!) slot++;
        series.counts[slot]! += 1;
        series.sum += value;
        series.count += 1;
      },
    };
  }

  /** What prom-client's registry renders as text: bucket labels apart from the series' own (sharedLabels). */
  getForPromString(): Exported {
    const values: ExportedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, counts, sum, count } of this.state.values()) {
      // prom-client exports a series from its first observation on (and none after a reset until the next).
      if (count === 0) continue;
      let cumulative = 0;
      this.bounds.forEach((bound, slot) => {
        cumulative += counts[slot]!;
        values.push({
          metricName: bucketName,
          labels: { le: bound },
          sharedLabels: labels,
          value: cumulative,
          exemplar: null,
        });
      });
      values.push({
        metricName: bucketName,
        labels: { le: '+Inf' },
        sharedLabels: labels,
        value: count,
        exemplar: null,
      });
      values.push({ metricName: `${this.name}_sum`, labels: {}, sharedLabels: labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels: {}, sharedLabels: labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** JSON (registry.getMetricsAsJSON, cluster aggregation): every label on the value itself. */
  get(): Exported {
    const exported = this.getForPromString();
    return {
      ...exported,
      values: exported.values.map(({ sharedLabels, labels, ...value }) => ({
        ...value,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }

  /** registry.resetMetrics(): every series back to zero (and out of the export); the callers' series stay valid. */
  reset(): void {
    for (const state of this.state.values()) {
      state.counts.fill(0);
      state.sum = 0;
      state.count = 0;
    }
  }
}
