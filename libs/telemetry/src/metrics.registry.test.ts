import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter } from 'prom-client';
import {
  counterSeries,
  createCounter,
  createHistogram,
  createMetrics,
  httpRequestDuration,
  LATENCY_BUCKETS_SECONDS,
  metricsHandler,
} from './metrics.registry';

async function scrape(handler: http.RequestListener, method = 'GET') {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { method });
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('metrics', () => {
  it('serves the registry in the Prometheus text format over node:http', async () => {
    const registry = createMetrics('edge-auth');
    const requests = createCounter(registry, {
      name: 'nats_requests_total',
      help: 'NATS requests sent',
      labelNames: ['subject', 'outcome'],
    });
    requests.inc({ subject: 'catalogue.lookup', outcome: 'ok' });
    httpRequestDuration(registry).observe({ route: '/v1/reports/:id', method: 'GET', status_code: '200' }, 0.0004);

    const { status, contentType, body } = await scrape(metricsHandler(registry));
    expect(status).toBe(200);
    expect(contentType).toBe(registry.contentType);
    expect(body).toContain('# TYPE gateway_nats_requests_total counter');
    expect(body).toContain(
      'gateway_nats_requests_total{subject="catalogue.lookup",outcome="ok",service="edge-auth"} 1',
    );
    expect(body).toContain(
      'gateway_http_request_duration_seconds_bucket{le="0.0005",service="edge-auth",route="/v1/reports/:id",method="GET",status_code="200"} 1',
    );
    // default process metrics, under the same prefix and with the service label
    expect(body).toMatch(/^gateway_process_cpu_user_seconds_total\{service="edge-auth"\} /m);
    expect(body).toContain('# TYPE gateway_nodejs_eventloop_lag_seconds gauge');
  });

  it('answers HEAD without a body', async () => {
    const { status, body } = await scrape(metricsHandler(createMetrics('x')), 'HEAD');
    expect(status).toBe(200);
    expect(body).toBe('');
  });

  it('answers 500 when a collector fails', async () => {
    const registry = createMetrics('x');
    createHistogram(registry, { name: 'broken_seconds', help: 'h' });
    jest.spyOn(registry, 'metrics').mockRejectedValueOnce(new Error('collect failed'));
    const { status, body } = await scrape(metricsHandler(registry));
    expect(status).toBe(500);
    expect(body).toContain('collect failed');
  });

  it('buckets latencies from half a millisecond to ten seconds', () => {
    expect(LATENCY_BUCKETS_SECONDS[0]).toBe(0.0005);
    expect(LATENCY_BUCKETS_SECONDS.at(-1)).toBe(10);
    expect([...LATENCY_BUCKETS_SECONDS].sort((a, b) => a - b)).toEqual(LATENCY_BUCKETS_SECONDS);
  });

  it('returns the same metric when it is defined twice, instead of throwing', () => {
    const registry = createMetrics('x');
    expect(httpRequestDuration(registry)).toBe(httpRequestDuration(registry));
    const counter = createCounter(registry, { name: 'gateway_cache_hits_total', help: 'h' });
    expect(createCounter(registry, { name: 'cache_hits_total', help: 'h' })).toBe(counter);
    expect(() => createHistogram(registry, { name: 'cache_hits_total', help: 'h' })).toThrow(/another type/);
  });

  it('refuses names outside the naming scheme', () => {
    const registry = createMetrics('x');
    expect(() => createCounter(registry, { name: 'cache_hits', help: 'h' })).toThrow(/_total/);
    expect(() => createHistogram(registry, { name: 'Latency-ms', help: 'h' })).toThrow(/snake_case/);
  });

  it('hands a counter series its plain-number counts whenever the counter is scraped', async () => {
    const registry = createMetrics('x');
    const counter = createCounter<'code'>(registry, { name: 'answers_total', help: 'h', labelNames: ['code'] });
    const refused = counterSeries(counter, { code: '429' });
    const ok = counterSeries(counter, { code: 'ok' });
    for (let i = 0; i < 5; i++) refused.inc();
    ok.inc();
    const first = await scrape(metricsHandler(registry));
    expect(first.body).toContain('gateway_answers_total{code="429",service="x"} 5');
    expect(first.body).toContain('gateway_answers_total{code="ok",service="x"} 1');
    refused.inc();
    expect((await counter.get()).values.find((value) => value.labels.code === '429')?.value).toBe(6);
    expect((await registry.getMetricsAsJSON()).length).toBeGreaterThan(0);
    expect((await scrape(metricsHandler(registry))).body).toContain('gateway_answers_total{code="429",service="x"} 6');
  });

  it('counts a series of a counter made without createCounter through prom-client', async () => {
    const registry = createMetrics('x');
    const plain = new Counter<'code'>({
      name: 'gateway_plain_total',
      help: 'h',
      labelNames: ['code'],
      registers: [registry],
    });
    counterSeries(plain, { code: 'a' }).inc();
    expect((await scrape(metricsHandler(registry))).body).toContain('gateway_plain_total{code="a",service="x"} 1');
  });
});
