import { findSamples, histogramQuantile, parsePrometheusText, type MetricSample } from '@gateway/testing';

export interface StageFigures {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Where a fixed-rate run's requests spent their time, from edge-auth's own histograms (bucket-interpolated): the
 * whole request inside the edge (parse to response finished), the wait for the quota-actor's verdict, and the wait
 * for provider-proxy's answer. What the load generator measured beyond `request` was spent outside the edge's
 * handler: in the kernel, in the edge's event loop before the handler ran, or in the load generator itself.
 */
export interface EdgeStages {
  request: StageFigures;
  decision: StageFigures;
  provider: StageFigures;
}

const HISTOGRAMS = {
  request: {
    name: 'gateway_http_request_duration_seconds',
    labels: { route: '/v1/:provider/*', method: 'GET', status_code: '200' },
  },
  decision: { name: 'gateway_edge_stage_duration_seconds', labels: { stage: 'decision' } },
  provider: { name: 'gateway_edge_stage_duration_seconds', labels: { stage: 'provider' } },
} as const;

async function scrape(edgeUrl: string): Promise<MetricSample[]> {
  const response = await fetch(`${edgeUrl}/metrics`);
  if (!response.ok) throw new Error(`${edgeUrl}/metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

function cumulativeBuckets(samples: MetricSample[], histogram: (typeof HISTOGRAMS)[keyof typeof HISTOGRAMS]) {
  return new Map(
    findSamples(samples, `${histogram.name}_bucket`, histogram.labels).map((sample) => [
      sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le),
      sample.value,
    ]),
  );
}

/** Scrapes the edge before a run; `stop()` scrapes it again and reads the run's share of each histogram. */
export async function startEdgeStageMeter(edgeUrl: string): Promise<{ stop(): Promise<EdgeStages> }> {
  const before = await scrape(edgeUrl);
  return {
    async stop() {
      const after = await scrape(edgeUrl);
      const figures = (key: keyof typeof HISTOGRAMS): StageFigures => {
        const earlier = cumulativeBuckets(before, HISTOGRAMS[key]);
        const buckets = [...cumulativeBuckets(after, HISTOGRAMS[key])].map(([le, count]) => ({
          le,
          count: count - (earlier.get(le) ?? 0),
        }));
        return {
          count: buckets.find((bucket) => bucket.le === Number.POSITIVE_INFINITY)?.count ?? 0,
          p50Ms: histogramQuantile(0.5, buckets) * 1000,
          p99Ms: histogramQuantile(0.99, buckets) * 1000,
        };
      };
      return { request: figures('request'), decision: figures('decision'), provider: figures('provider') };
    },
  };
}
