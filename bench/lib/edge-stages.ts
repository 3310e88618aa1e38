import { findSamples, histogramQuantile, parsePrometheusText, type MetricSample } from '@gateway/testing';

export interface StageFigures {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Where a fixed-rate run's requests spent their time, from the services' own histograms (bucket-interpolated): the
 * whole request inside edge-auth (parse to response finished), its wait for the quota-actor's verdict, its wait for
 * provider-proxy's answer, and within that provider-proxy's own call to the platform. What the load generator
 * measured beyond `request` was spent outside edge-auth's handler: in the kernel, in its event loop before the
 * handler ran, or in the load generator itself.
 */
export interface EdgeStages {
  request: StageFigures;
  decision: StageFigures;
  provider: StageFigures;
  platform: StageFigures;
  /** The collector's pauses during the run (absent in reports made before 2026-12-04). */
  collector?: Record<Source, CollectorFigures>;
}

/** V8's collector pauses of one process in a run, every kind together: each one holds every request in the process. */
export interface CollectorFigures {
  pauses: number;
  totalMs: number;
  /** Pauses over 10 ms (a bucket bound of the histogram). */
  over10Ms: number;
}

type Source = 'edge' | 'proxy';
type Stage = Exclude<keyof EdgeStages, 'collector'>;

const HISTOGRAMS = {
  request: {
    source: 'edge',
    name: 'gateway_http_request_duration_seconds',
    labels: { route: '/v1/:provider/*', method: 'GET', status_code: '200' },
  },
  decision: { source: 'edge', name: 'gateway_edge_stage_duration_seconds', labels: { stage: 'decision' } },
  provider: { source: 'edge', name: 'gateway_edge_stage_duration_seconds', labels: { stage: 'provider' } },
  platform: {
    source: 'proxy',
    name: 'gateway_provider_upstream_request_duration_seconds',
    labels: { status_class: '2xx' },
  },
} as const satisfies Record<Stage, { source: Source; name: string; labels: Record<string, string> }>;

/** The samples of a service's /metrics at `url` (its HTTP origin); throws when it does not answer 2xx. */
export async function scrapeMetrics(url: string): Promise<MetricSample[]> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`${url}/metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** le -> cumulative count, summed over the series that match (one per endpoint, say). */
function cumulativeBuckets(samples: MetricSample[], histogram: (typeof HISTOGRAMS)[Stage]) {
  const buckets = new Map<number, number>();
  for (const sample of findSamples(samples, `${histogram.name}_bucket`, histogram.labels)) {
    const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + sample.value);
  }
  return buckets;
}

const GC_HISTOGRAM = 'gateway_nodejs_gc_duration_seconds';

/** The pauses between two scrapes of one process, from prom-client's collector histogram (every `kind` summed). */
export function collectorFigures(before: MetricSample[], after: MetricSample[]): CollectorFigures {
  const total = (samples: MetricSample[], suffix: string, labels: Record<string, string> = {}) =>
    findSamples(samples, `${GC_HISTOGRAM}${suffix}`, labels).reduce((sum, sample) => sum + sample.value, 0);
  const delta = (suffix: string, labels?: Record<string, string>) =>
    total(after, suffix, labels) - total(before, suffix, labels);
  const pauses = delta('_count');
  return {
    pauses,
    totalMs: delta('_sum') * 1000,
    over10Ms: pauses - delta('_bucket', { le: '0.01' }),
  };
}

/** Scrapes edge-auth and provider-proxy before a run; `stop()` scrapes them again and reads the run's share. */
export async function startEdgeStageMeter(urls: Record<Source, string>): Promise<{ stop(): Promise<EdgeStages> }> {
  const scrapeAll = async () => ({ edge: await scrapeMetrics(urls.edge), proxy: await scrapeMetrics(urls.proxy) });
  const before = await scrapeAll();
  return {
    async stop() {
      const after = await scrapeAll();
      const figures = (key: Stage): StageFigures => {
        const histogram = HISTOGRAMS[key];
        const earlier = cumulativeBuckets(before[histogram.source], histogram);
        const buckets = [...cumulativeBuckets(after[histogram.source], histogram)].map(([le, count]) => ({
          le,
          count: count - (earlier.get(le) ?? 0),
        }));
        return {
          count: buckets.find((bucket) => bucket.le === Number.POSITIVE_INFINITY)?.count ?? 0,
          p50Ms: histogramQuantile(0.5, buckets) * 1000,
          p99Ms: histogramQuantile(0.99, buckets) * 1000,
        };
      };
      return {
        request: figures('request'),
        decision: figures('decision'),
        provider: figures('provider'),
        platform: figures('platform'),
        collector: {
          edge: collectorFigures(before.edge, after.edge),
          proxy: collectorFigures(before.proxy, after.proxy),
        },
      };
    },
  };
}
