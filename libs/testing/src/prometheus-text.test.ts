import { findSamples, histogramQuantile, parsePrometheusText } from './prometheus-text';

const EXPOSITION = `# HELP gateway_x_seconds x
# TYPE gateway_x_seconds histogram
gateway_x_seconds_bucket{le="0.001",stage="decision",service="edge-auth"} 50
gateway_x_seconds_bucket{le="0.01",stage="decision",service="edge-auth"} 90
gateway_x_seconds_bucket{le="+Inf",stage="decision",service="edge-auth"} 100
gateway_x_seconds_count{stage="decision",service="edge-auth"} 100
gateway_up 1
`;

it('prometheus text - parses samples with their labels and leaves comments out', () => {
  const samples = parsePrometheusText(EXPOSITION);
  expect(samples).toHaveLength(5);
  expect(findSamples(samples, 'gateway_x_seconds_bucket', { stage: 'decision', le: '+Inf' })).toEqual([
    { name: 'gateway_x_seconds_bucket', labels: { le: '+Inf', stage: 'decision', service: 'edge-auth' }, value: 100 },
  ]);
  expect(findSamples(samples, 'gateway_up')[0]!.value).toBe(1);
  expect(findSamples(samples, 'gateway_x_seconds_count', { stage: 'provider' })).toEqual([]);
});

it('prometheus text - histogram quantiles interpolate inside the bucket, as histogram_quantile does', () => {
  const buckets = [
    { le: 0.001, count: 50 },
    { le: 0.01, count: 90 },
    { le: Number.POSITIVE_INFINITY, count: 100 },
  ];
  expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.001);
  expect(histogramQuantile(0.25, buckets)).toBeCloseTo(0.0005);
  expect(histogramQuantile(0.7, buckets)).toBeCloseTo(0.001 + 0.009 * (20 / 40));
  // In the +Inf bucket: the highest finite bound.
  expect(histogramQuantile(0.99, buckets)).toBe(0.01);
  expect(histogramQuantile(0.5, [{ le: Number.POSITIVE_INFINITY, count: 0 }])).toBeNaN();
});
