import { AggregatorRegistry, Gauge, Histogram, Registry } from 'prom-client';
import {
  createGauge,
  createHistogram,
  createMetrics,
  createTalliedHistogram,
  gaugeSeries,
  httpRequestDuration,
  seriesByLabels,
  talliedHttpRequestDuration,
} from './metrics.registry';

const definition = {
  name: 'probe_duration_seconds',
  help: 'A probe.',
  labelNames: ['stage', 'code'] as const,
  buckets: [0.001, 0.01, 0.1, 1],
};

/** The same observations through prom-client's Histogram and through a TalliedHistogram, each on its own registry. */
function twins() {
  const plainRegistry = createMetrics('edge-auth');
  const talliedRegistry = createMetrics('edge-auth');
  const plain = createHistogram(plainRegistry, { ...definition, labelNames: [...definition.labelNames] });
  const tallied = createTalliedHistogram(talliedRegistry, { ...definition, labelNames: [...definition.labelNames] });
  return {
    plainRegistry,
    talliedRegistry,
    tallied,
    observe(labels: { stage: string; code?: string }, values: number[]) {
      const series = tallied.series(labels);
      for (const value of values) {
        plain.observe(labels, value);
        series.observe(value);
      }
    },
  };
}

const ours = (text: string) => text.split('\n').filter((line) => line.includes('probe_duration_seconds'));

describe('TalliedHistogram', () => {
  it("exports what prom-client's Histogram exports for the same observations, as text and as JSON", async () => {
    const { plainRegistry, talliedRegistry, observe } = twins();
    // On a bound, between bounds, past the last one, zero, and a series with a label left out.
    observe({ stage: 'decision', code: 'ok' }, [0.001, 0.0005, 0.05, 0.1, 3, 0, 0.0101]);
    observe({ stage: 'provider', code: '429' }, [0.2]);
    observe({ stage: 'provider' }, [0.02, 0.03]);

    const text = ours(await talliedRegistry.metrics());
    expect(text).toEqual(ours(await plainRegistry.metrics()));
    expect(text).toContain(
      'gateway_probe_duration_seconds_bucket{le="0.01",service="edge-auth",stage="decision",code="ok"} 3',
    );
    expect(text).toContain('gateway_probe_duration_seconds_count{service="edge-auth",stage="decision",code="ok"} 7');

    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).find((metric) => metric.name === 'gateway_probe_duration_seconds');
    expect(await json(talliedRegistry)).toEqual(await json(plainRegistry));
  });

  it('adds up across node:cluster workers as a prom-client histogram does', async () => {
    const first = twins();
    const second = twins();
    first.observe({ stage: 'decision', code: 'ok' }, [0.002, 0.5]);
    second.observe({ stage: 'decision', code: 'ok' }, [0.003]);
    second.observe({ stage: 'provider', code: 'ok' }, [0.04]);
    const aggregate = async (a: Registry, b: Registry) =>
      ours(await AggregatorRegistry.aggregate([await a.getMetricsAsJSON(), await b.getMetricsAsJSON()]).metrics());
    expect(await aggregate(first.talliedRegistry, second.talliedRegistry)).toEqual(
      await aggregate(first.plainRegistry, second.plainRegistry),
    );
  });

  it('exports nothing for a series until it is observed, and nothing after a reset until the next observation', async () => {
    const { talliedRegistry, tallied } = twins();
    const series = tallied.series({ stage: 'decision' });
    expect(ours(await talliedRegistry.metrics())).toEqual([
      '# HELP gateway_probe_duration_seconds A probe.',
      '# TYPE gateway_probe_duration_seconds histogram',
    ]);
    series.observe(0.5);
    expect(ours(await talliedRegistry.metrics())).toContain(
      'gateway_probe_duration_seconds_sum{service="edge-auth",stage="decision"} 0.5',
    );
    talliedRegistry.resetMetrics();
    expect(ours(await talliedRegistry.metrics())).toHaveLength(2);
    series.observe(0.05);
    expect(ours(await talliedRegistry.metrics())).toContain(
      'gateway_probe_duration_seconds_count{service="edge-auth",stage="decision"} 1',
    );
  });

  it('gives every lookup of the same labels the same series', async () => {
    const { talliedRegistry, tallied } = twins();
    tallied.series({ stage: 'decision', code: 'ok' }).observe(0.1);
    tallied.series({ code: 'ok', stage: 'decision' }).observe(0.1);
    expect(ours(await talliedRegistry.metrics())).toContain(
      'gateway_probe_duration_seconds_count{service="edge-auth",stage="decision",code="ok"} 2',
    );
  });

  it('ignores a value that is not a finite number rather than corrupting the sum', async () => {
    const { talliedRegistry, tallied } = twins();
    const series = tallied.series({ stage: 'decision' });
    series.observe(Number.NaN);
    series.observe(Number.POSITIVE_INFINITY);
    series.observe(0.25);
    expect(ours(await talliedRegistry.metrics())).toContain(
      'gateway_probe_duration_seconds_sum{service="edge-auth",stage="decision"} 0.25',
    );
  });

  it('refuses a label it does not have, and bounds that do not increase', () => {
    const { tallied } = twins();
    expect(() => tallied.series({ route: '/x' } as never)).toThrow(/no label "route"/);
    expect(() =>
      createTalliedHistogram(new Registry(), { name: 'bad_seconds', help: 'h', buckets: [0.1, 0.1] }),
    ).toThrow(/must increase/);
  });

  it('is returned again when defined twice, and refused under the name of a metric of another type', () => {
    const registry = createMetrics('edge-auth');
    const first = talliedHttpRequestDuration(registry);
    expect(talliedHttpRequestDuration(registry)).toBe(first);
    expect(() => httpRequestDuration(registry)).toThrow(/another type/);
    expect(createMetrics('mcp-server').getSingleMetric('gateway_http_request_duration_seconds')).toBeUndefined();
    expect(httpRequestDuration(createMetrics('mcp-server'))).toBeInstanceOf(Histogram);
  });
});

describe('gaugeSeries', () => {
  it('holds the value in a plain number and sets it on the gauge when scraped', async () => {
    const registry = createMetrics('provider-proxy');
    const gauge = createGauge(registry, { name: 'in_flight_requests', help: 'h', labelNames: ['provider'] });
    const shop = gaugeSeries(gauge, { provider: 'video-shop' });
    const ads = gaugeSeries(gauge, { provider: 'video-ads' });
    shop.inc();
    shop.inc();
    shop.inc();
    shop.dec();
    ads.set(7);
    const text = await registry.metrics();
    expect(text).toContain('gateway_in_flight_requests{provider="video-shop",service="provider-proxy"} 2');
    expect(text).toContain('gateway_in_flight_requests{provider="video-ads",service="provider-proxy"} 7');
    shop.dec();
    shop.dec();
    expect(await registry.metrics()).toContain(
      'gateway_in_flight_requests{provider="video-shop",service="provider-proxy"} 0',
    );
  });

  it('exports a series only once it moved', async () => {
    const registry = createMetrics('provider-proxy');
    const gauge = createGauge(registry, { name: 'waiting_requests', help: 'h', labelNames: ['provider'] });
    gaugeSeries(gauge, { provider: 'video-shop' });
    expect(await registry.metrics()).not.toContain('gateway_waiting_requests{');
  });

  it('updates a gauge made without createGauge through prom-client at once', async () => {
    const registry = new Registry();
    const gauge = new Gauge({ name: 'plain_gauge', help: 'h', labelNames: ['provider'], registers: [registry] });
    const series = gaugeSeries(gauge, { provider: 'video-ads' });
    series.inc();
    series.inc();
    expect(await registry.metrics()).toContain('plain_gauge{provider="video-ads"} 2');
  });
});

describe('seriesByLabels', () => {
  it('makes one series per distinct label values and returns it again', () => {
    const made: string[][] = [];
    const lookup = seriesByLabels((provider: string, endpoint: string) => {
      made.push([provider, endpoint]);
      return { provider, endpoint };
    });
    const first = lookup('video-ads', '/a');
    expect(lookup('video-ads', '/a')).toBe(first);
    expect(lookup('video-ads', '/b')).not.toBe(first);
    // Values that would join into the same string stay apart.
    expect(lookup('video-ads/', 'a')).not.toBe(first);
    expect(made).toEqual([
      ['video-ads', '/a'],
      ['video-ads', '/b'],
      ['video-ads/', 'a'],
    ]);
  });

  it('takes numbers as they are (a status code), with no string made per lookup', () => {
    const lookup = seriesByLabels((route: string, status: number) => ({ route, status }));
    const ok = lookup('/v1/me', 200);
    expect(lookup('/v1/me', 200)).toBe(ok);
    expect(lookup('/v1/me', 429)).toEqual({ route: '/v1/me', status: 429 });
  });
});
