import {
  findSamples as find,
  GatewayFixtures,
  parsePrometheusText,
  startGatewayCluster,
  type MetricSample as Sample,
  startService,
  type GatewayCluster,
  type RunningService,
} from '@gateway/testing';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir, ensureHelm, helmTemplate } from './deploy/helm';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * What SREs scrape (the chart's ServiceMonitors point at these /metrics endpoints): request rate, errors and
 * duration at the ingresses, limiter decisions by outcome and partition ownership at quota-actor, platform latency
 * by provider at provider-proxy, and process metrics everywhere, all under the gateway_ prefix with a service label.
 */
jest.setTimeout(120_000);

const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let mcp: RunningService | undefined;
const hasMcp = existsSync(join(__dirname, '..', 'services', 'mcp-server', 'src', 'main.ts'));

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({
    mongoUri,
    natsUrl: testNatsUrl(),
    proxyEnv: { GRPC_PORT: '0', HTTP_PORT: '0' },
  });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  if (hasMcp) {
    mcp = await startService(
      'mcp-server',
      {
        ...cluster.sharedEnv,
        NATS_URL: testNatsUrl(),
        PROVIDER_PROXY_ADDRESS: new URL(cluster.proxy.urls.grpc!).host,
        LOG_LEVEL: 'warn',
      },
      { listeners: ['http'], timeoutMs: 60_000 },
    );
  }

  // Traffic: one forwarded request, one refused by the edge, one refused by the actor (unknown key).
  const customer = await fixtures.customer();
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const key = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
  const edge = cluster.edges[0]!.url;
  expect((await rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': key.secret } })).status).toBe(200);
  expect((await rawRequest(edge, ADVERTISERS)).status).toBe(401);
  const unknownKey = `dg_live_${'x'.repeat(40)}`;
  expect((await rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': unknownKey } })).status).toBe(401);
  if (mcp)
    await fetch(`${mcp.url}/mcp`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
}, 120_000);

afterAll(async () => {
  await mcp?.stop();
  await fixtures?.close();
  await cluster?.stop();
});

/** The samples of a service's /metrics, and its `# TYPE` lines as samples named after the whole line. */
async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  const types = text.split('\n').filter((line) => line.startsWith('# TYPE '));
  return [...parsePrometheusText(text), ...types.map((line) => ({ name: line, labels: {}, value: Number.NaN }))];
}

function expectProcessMetrics(samples: Sample[], service: string): void {
  expect(find(samples, 'gateway_process_cpu_user_seconds_total', { service })).toHaveLength(1);
  expect(find(samples, 'gateway_nodejs_eventloop_lag_p99_seconds', { service })).toHaveLength(1);
}

describe('metrics - every service exposes what the dashboards need', () => {
  it('edge-auth: request rate, errors and duration by route, method and status', async () => {
    const samples = await scrape(cluster.edges[0]!.url);
    expectProcessMetrics(samples, 'edge-auth');
    const route = { service: 'edge-auth', route: '/v1/:provider/*', method: 'GET' };
    expect(
      find(samples, 'gateway_http_request_duration_seconds_count', { ...route, status_code: '200' })[0]?.value,
    ).toBe(1);
    expect(
      find(samples, 'gateway_http_request_duration_seconds_count', { ...route, status_code: '401' })[0]?.value,
    ).toBe(2);
    expect(
      find(samples, 'gateway_http_request_duration_seconds_bucket', { ...route, status_code: '200', le: '+Inf' }),
    ).toHaveLength(1);
    expect(
      find(samples, 'gateway_http_request_duration_seconds_sum', { ...route, status_code: '200' })[0]!.value,
    ).toBeGreaterThan(0);
    expect(find(samples, 'gateway_edge_responses_total', { code: 'ok' })[0]?.value).toBe(1);
    expect(find(samples, 'gateway_edge_responses_total', { code: '401' })[0]?.value).toBe(2);
    // Where a request waited: the actor decided the forwarded and the unknown key's request (the request without a
    // key never left the edge); provider-proxy answered the forwarded one.
    const stage = (name: string) =>
      find(samples, 'gateway_edge_stage_duration_seconds_count', { service: 'edge-auth', stage: name })[0]?.value;
    expect(stage('decision')).toBe(2);
    expect(stage('provider')).toBe(1);
    const providerSeconds = find(samples, 'gateway_edge_stage_duration_seconds_sum', { stage: 'provider' })[0]!.value;
    const requestSeconds = find(samples, 'gateway_http_request_duration_seconds_sum', {
      ...route,
      status_code: '200',
    })[0]!.value;
    expect(providerSeconds).toBeGreaterThan(0);
    expect(providerSeconds).toBeLessThan(requestSeconds);
  });

  it('quota-actor: limiter decisions by outcome and partition ownership', async () => {
    const samples = await scrape(cluster.actors[0]!.url);
    expectProcessMetrics(samples, 'quota-actor');
    expect(find(samples, 'gateway_limiter_decisions_total', { outcome: 'admitted' })[0]?.value).toBe(1);
    expect(find(samples, 'gateway_limiter_decisions_total', { outcome: 'invalid_api_key' })[0]?.value).toBe(1);
    // The admitted request's key is on trial (block mode): the actor took one reservation from the ledger first.
    expect(find(samples, 'gateway_quota_reservation_seconds_count', { outcome: 'granted' })[0]?.value).toBe(1);
    expect(find(samples, 'gateway_quota_reservation_seconds_bucket', { outcome: 'granted', le: '+Inf' })).toHaveLength(
      1,
    );
    // The only actor of the cluster owns every partition (PARTITIONS=16 in the cluster harness).
    expect(find(samples, 'gateway_partitions_owned', { service: 'quota-actor' })[0]?.value).toBe(
      Number(cluster.sharedEnv.PARTITIONS),
    );
  });

  it('provider-proxy: platform latency by provider, failures and in-flight requests', async () => {
    const samples = await scrape(cluster.proxy.urls.http!);
    expectProcessMetrics(samples, 'provider-proxy');
    const upstream = { provider: 'video-ads', endpoint: '/v1.3/oauth2/advertiser/get/', status_class: '2xx' };
    expect(find(samples, 'gateway_provider_upstream_request_duration_seconds_count', upstream)[0]?.value).toBe(1);
    expect(
      find(samples, 'gateway_provider_upstream_request_duration_seconds_bucket', { ...upstream, le: '+Inf' }),
    ).toHaveLength(1);
    expect(samples.some((sample) => sample.name === 'gateway_provider_proxy_in_flight_requests')).toBe(true);
    // Declared even before the first failure (a counter without labels seen yet has no sample line).
    expect(samples.some((sample) => sample.name === '# TYPE gateway_provider_proxy_failures_total counter')).toBe(true);
  });

  it("the chart's alerts read only metrics and labels these services expose", async () => {
    const rendered = helmTemplate(ensureHelm(), [
      '--values',
      join(chartDir, 'ci', 'production-values.yaml'),
      '--show-only',
      'templates/prometheusrule.yaml',
    ]);
    const exprs = [...rendered.matchAll(/^ {10}expr: \|\n((?: {12}.*\n)+)/gm)].map((match) => match[1]!);
    expect(exprs).toHaveLength(5);
    const samples = [
      ...(await scrape(cluster.edges[0]!.url)),
      ...(await scrape(cluster.actors[0]!.url)),
      ...(await scrape(cluster.proxy.urls.http!)),
    ];
    // A family is exposed when it has samples, or (a labelled counter before its first increment) its # TYPE line.
    const families = new Set(samples.map((sample) => sample.name.replace(/^# TYPE (\S+) .*$/, '$1')));
    const labelsOf = (metric: string) =>
      new Set(samples.filter((sample) => sample.name === metric).flatMap((sample) => Object.keys(sample.labels)));
    for (const expr of exprs) {
      for (const [, metric, selector] of expr.matchAll(/(gateway_[a-z0-9_]+)\{([^}]*)\}/g)) {
        const family = metric!.replace(/_(bucket|count|sum)$/, '');
        expect([metric, family].some((name) => families.has(name!))).toBe(true);
        // Labels other than the namespace (added by the scrape) must be the metric's own, where samples exist.
        const labels = labelsOf(metric!);
        if (labels.size === 0) continue;
        for (const [, label] of selector!.matchAll(/([a-z_]+)(?:=~|=)"/g)) {
          if (label !== 'namespace')
            expect({ metric, label, known: labels.has(label!) }).toEqual({ metric, label, known: true });
        }
      }
    }
    // helm template is a process of its own: on a busy 2-core machine it alone can take longer than jest's 5 s.
  }, 30_000);

  (hasMcp ? it : it.skip)('mcp-server: request rate, errors and duration', async () => {
    const samples = await scrape(mcp!.url);
    expectProcessMetrics(samples, 'mcp-server');
    const requests = find(samples, 'gateway_http_request_duration_seconds_count', { service: 'mcp-server' });
    expect(requests.reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThanOrEqual(1);
    expect(requests.some((sample) => Number(sample.labels.status_code) >= 400)).toBe(true);
  });
});
