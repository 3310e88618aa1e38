import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import { TalliedHistogram } from './tallied-histogram';

/** Every metric of the gateway, process metrics included, starts with this, so one selector finds them all. */
export const METRIC_PREFIX = 'gateway_';

/**
 * Latency buckets in seconds for a gateway whose answers range from a cached sub-millisecond lookup to a
 * platform call of several seconds; the finer steps sit where the fast paths are.
 */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const METRIC_NAME = /^[a-z][a-z0-9_]*[a-z0-9]$/;

export interface MetricDefinition<L extends string> {
  /** Name after the `gateway_` prefix (which is added if missing), snake_case, with its unit or `_total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  /** Upper bounds in the metric's unit; defaults to LATENCY_BUCKETS_SECONDS. */
  buckets?: readonly number[];
}

export type HttpRequestLabel = 'route' | 'method' | 'status_code';

/**
 * A registry for one service: default Node.js process metrics under `gateway_` and a `service` label on
 * every series, so dashboards can tell the services apart even when they share a scrape job.
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag histogram samples with a timer: every 100 ms rather than prom-client's 10 ms, since each timer
  // wake-up of a quiet process costs tens of microseconds of CPU here; lags worth alerting on are far longer.
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX, eventLoopMonitoringPrecision: 100 });
  return registry;
}

function fullName(name: string, kind: string): string {
  const full = name.startsWith(METRIC_PREFIX) ? name : `${METRIC_PREFIX}${name}`;
  if (!METRIC_NAME.test(full)) {
    throw new Error(`${kind} name "${full}" is not snake_case ([a-z0-9_], starting with a letter)`);
  }
  return full;
}

/**
 * The registered metric of that name, if any. Creating a metric twice returns the first one instead of
 * throwing, so a module that defines its metrics can be instantiated more than once (tests, several servers).
 */
function existing<M>(registry: Registry, name: string, type: abstract new (...args: never[]) => M): M | undefined {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  if (!(metric instanceof type)) throw new Error(`metric "${name}" is already registered with another type`);
  return metric;
}

/** A counter named `gateway_<name>`; counter names end in `_total` (Prometheus and OpenMetrics convention). */
export function createCounter<L extends string = never>(
  registry: Registry,
  definition: MetricDefinition<L>,
): Counter<L> {
  const name = fullName(definition.name, 'counter');
  if (!name.endsWith('_total')) throw new Error(`counter name "${name}" must end in _total`);
  const found = existing<Counter<L>>(registry, name, Counter);
  if (found) return found;
  const counter: Counter<L> = new Counter<L>({
    name,
    help: definition.help,
    labelNames: definition.labelNames ?? [],
    registers: [registry],
    collect: () => flushTallies(counter),
  });
  tallyFlushes.set(counter, []);
  return counter;
}

/** The tallies of each counter and gauge made here (counterSeries, gaugeSeries), handed to it whenever it is collected. */
const tallyFlushes = new WeakMap<object, Array<() => void>>();

function flushTallies(metric: object): void {
  for (const flush of tallyFlushes.get(metric) ?? []) flush();
}

/**
 * One labelled series of a counter for a path that counts thousands of times a second. prom-client's labelled series
 * hashes its label values on every inc (a string and an object per call); this one adds to a plain number and gives
 * the sum to the counter when the counter is collected, before every scrape, so a scrape reads the same totals.
 */
export function counterSeries<L extends string>(counter: Counter<L>, labels: LabelValues<L>): { inc(): void } {
  const flushes = tallyFlushes.get(counter);
  // A counter made elsewhere has no collect hook to flush into: count through prom-client then.
  if (flushes === undefined) return counter.labels(labels);
  let pending = 0;
  flushes.push(() => {
    if (pending === 0) return;
    counter.inc(labels, pending);
    pending = 0;
  });
  return {
    inc: () => {
      pending++;
    },
  };
}

/** A histogram named `gateway_<name>`, in seconds with the latency buckets unless told otherwise. */
export function createHistogram<L extends string = never>(
  registry: Registry,
  definition: HistogramDefinition<L>,
): Histogram<L> {
  const name = fullName(definition.name, 'histogram');
  return (
    existing<Histogram<L>>(registry, name, Histogram) ??
    new Histogram<L>({
      name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      buckets: [...(definition.buckets ?? LATENCY_BUCKETS_SECONDS)],
      registers: [registry],
    })
  );
}

/**
 * A histogram named `gateway_<name>` whose series are looked up once and observed with no label work
 * (TalliedHistogram), for paths that observe on every request. Same export as createHistogram's.
 */
export function createTalliedHistogram<L extends string = never>(
  registry: Registry,
  definition: HistogramDefinition<L>,
): TalliedHistogram<L> {
  const name = fullName(definition.name, 'histogram');
  return (
    existing<TalliedHistogram<L>>(registry, name, TalliedHistogram) ??
    new TalliedHistogram<L>(
      registry,
      name,
      definition.help,
      definition.labelNames ?? [],
      definition.buckets ?? LATENCY_BUCKETS_SECONDS,
    )
  );
}

export interface GaugeSeries {
  inc(): void;
  dec(): void;
  set(value: number): void;
}

/**
 * `make(...labelValues)` made once per distinct label values and kept: a hot path looks up its series in nested maps,
 * with no key string built per lookup (a status code can stay a number). For labels of bounded values only (a
 * template, a method, a provider id, a status).
 */
export function seriesByLabels<A extends (string | number)[], S>(make: (...values: A) => S): (...values: A) => S {
  interface Level {
    next: Map<string | number, Level>;
    series?: S;
  }
  const root: Level = { next: new Map() };
  return (...values) => {
    let level = root;
    for (const value of values) {
      let next = level.next.get(value);
      if (next === undefined) level.next.set(value, (next = { next: new Map() }));
      level = next;
    }
    return (level.series ??= make(...values));
  };
}

/** A gauge named `gateway_<name>`; gaugeSeries keeps a series of it in a plain number, set on every collection. */
export function createGauge<L extends string = never>(registry: Registry, definition: MetricDefinition<L>): Gauge<L> {
  const name = fullName(definition.name, 'gauge');
  const found = existing<Gauge<L>>(registry, name, Gauge);
  if (found) return found;
  const gauge: Gauge<L> = new Gauge<L>({
    name,
    help: definition.help,
    labelNames: definition.labelNames ?? [],
    registers: [registry],
    collect: () => flushTallies(gauge),
  });
  tallyFlushes.set(gauge, []);
  return gauge;
}

/**
 * One labelled series of a gauge that moves on every request (requests in flight). It holds the value itself and
 * sets it on the gauge when the gauge is collected, so the series must change only through here.
 */
export function gaugeSeries<L extends string>(gauge: Gauge<L>, labels: LabelValues<L>): GaugeSeries {
  const flushes = tallyFlushes.get(gauge);
  // A gauge made elsewhere has no collect hook to flush into: update it through prom-client then.
  if (flushes === undefined) {
    return { inc: () => gauge.inc(labels), dec: () => gauge.dec(labels), set: (value) => gauge.set(labels, value) };
  }
  let value = 0;
  let touched = false;
  flushes.push(() => {
    if (touched) gauge.set(labels, value);
  });
  return {
    inc: () => {
      value++;
      touched = true;
    },
    dec: () => {
      value--;
      touched = true;
    },
    set: (next) => {
      value = next;
      touched = true;
    },
  };
}

const HTTP_REQUEST_DURATION: HistogramDefinition<HttpRequestLabel> = {
  name: 'http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to finishing its response, by route template, method and status.',
  labelNames: ['route', 'method', 'status_code'],
};

/**
 * `gateway_http_request_duration_seconds{route,method,status_code}`. `route` is the route template
 * (`/v1/reports/:id`), never the raw path: raw paths carry ids (unbounded series) and sometimes credentials.
 */
export function httpRequestDuration(registry: Registry): Histogram<HttpRequestLabel> {
  return createHistogram<HttpRequestLabel>(registry, HTTP_REQUEST_DURATION);
}

/** The same metric for a server that observes it on its hot path (edge-auth), through looked-up series. */
export function talliedHttpRequestDuration(registry: Registry): TalliedHistogram<HttpRequestLabel> {
  return createTalliedHistogram<HttpRequestLabel>(registry, HTTP_REQUEST_DURATION);
}

/**
 * Serves the registry in the Prometheus text format. A plain node:http handler, so it mounts as is under
 * Express (`app.get('/metrics', metricsHandler(registry))`) or behind a path check in a bare server.
 */
export function metricsHandler(registry: Registry): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    registry.metrics().then(
      (body) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', registry.contentType);
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end(`metrics collection failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  };
}
