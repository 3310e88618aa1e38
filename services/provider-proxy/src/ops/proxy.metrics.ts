import {
  createCounter,
  createGauge,
  createHistogram,
  createMetrics,
  createTalliedHistogram,
  gaugeSeries,
  seriesByLabels,
  type GaugeSeries,
  type HistogramSeries,
} from '@gateway/telemetry';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ProxyMetrics {
  registry: Registry;
  failures: Counter<'provider' | 'code'>;
  guardWait: Histogram<'provider'>;
  guardRejections: Counter<'provider'>;
  credentialLookups: Counter<'result'>;
  tokenReloads: Counter<'provider' | 'outcome'>;
  tokenRenewals: Counter<'provider' | 'outcome'>;
  renewalExposure: Histogram<'provider'>;
  exchangeStreams: Gauge;
  /**
   * The series every request observes or moves, each looked up once per label values (no label work per request).
   * The upstream duration histogram and the in-flight and QPS-guard gauges change only through these: a gauge series
   * holds its value and sets it on every scrape.
   */
  series: {
    /** One observation per platform call (a token retry is a second call), by HTTP status class or "error". */
    upstream(provider: string, endpoint: string, statusClass: string): HistogramSeries;
    inFlight(provider: string, transport: string): GaugeSeries;
    guardWaiting(provider: string): GaugeSeries;
  };
}

/** The provider-proxy's metrics on a fresh registry (process metrics included), served on /metrics. */
export function createProxyMetrics(): ProxyMetrics {
  const registry = createMetrics('provider-proxy');
  const gauge = <L extends string>(name: string, help: string, labelNames: L[]) =>
    createGauge<L>(registry, { name, help, labelNames });
  const upstreamDuration = createTalliedHistogram<'provider' | 'endpoint' | 'status_class'>(registry, {
    name: 'provider_upstream_request_duration_seconds',
    help: 'Time from sending a platform request to the end of its answer body, by provider, endpoint and status class.',
    labelNames: ['provider', 'endpoint', 'status_class'],
  });
  const inFlight = gauge('provider_proxy_in_flight_requests', 'Requests being processed, by provider and transport.', [
    'provider',
    'transport',
  ]);
  const guardWaiting = gauge('provider_qps_guard_waiting_requests', 'Requests waiting for the QPS guard now.', [
    'provider',
  ]);
  return {
    registry,
    failures: createCounter(registry, {
      name: 'provider_proxy_failures_total',
      help: 'Requests answered with a gateway failure instead of a platform answer, by failure code.',
      labelNames: ['provider', 'code'],
    }),
    guardWait: createHistogram(registry, {
      name: 'provider_qps_guard_wait_seconds',
      help: 'Time requests waited for the per-app QPS guard (only requests that had to wait).',
      labelNames: ['provider'],
    }),
    guardRejections: createCounter(registry, {
      name: 'provider_qps_guard_rejections_total',
      help: 'Requests refused with platform_busy because the QPS guard queue was full or too long.',
      labelNames: ['provider'],
    }),
    credentialLookups: createCounter(registry, {
      name: 'provider_credential_lookups_total',
      help: 'Credential lookups by result: hit (memory), miss (read from MongoDB), error.',
      labelNames: ['result'],
    }),
    tokenReloads: createCounter(registry, {
      name: 'provider_token_reloads_total',
      help: 'Reloads after the platform refused a cached token, by outcome (retried with a new token, or unchanged).',
      labelNames: ['provider', 'outcome'],
    }),
    tokenRenewals: createCounter(registry, {
      name: 'provider_token_renewals_total',
      help:
        'Platform token renewals this replica made, by outcome: renewed, refused (re-grant needed), unavailable, ' +
        'store_failed (new tokens not stored), store_inactive (revoked meanwhile), store_superseded (re-granted ' +
        'meanwhile: the new grant kept).',
      labelNames: ['provider', 'outcome'],
    }),
    renewalExposure: createHistogram(registry, {
      name: 'provider_token_renewal_exposure_seconds',
      help:
        'Time from sending a token renewal to the store acknowledging its new tokens: a crash inside it loses a ' +
        'rotating grant.',
      labelNames: ['provider'],
    }),
    exchangeStreams: gauge('provider_proxy_exchange_streams', 'Open Exchange streams.', []),
    series: {
      upstream: seriesByLabels((provider, endpoint, statusClass) =>
        upstreamDuration.series({ provider, endpoint, status_class: statusClass }),
      ),
      inFlight: seriesByLabels((provider, transport) => gaugeSeries(inFlight, { provider, transport })),
      guardWaiting: seriesByLabels((provider) => gaugeSeries(guardWaiting, { provider })),
    },
  };
}

/** "2xx" for 200..299 etc.; bounded label values. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}
