import { connectNats, DecisionClient, failFastWhileDisconnected } from '@gateway/decisions';
import { createClientAddressResolver } from '@gateway/store';
import { createProviderCaller, type ProviderCaller } from '@gateway/proto';
import {
  clusterMetricsHandler,
  counterSeries,
  createCounter,
  createMetrics,
  createTalliedHistogram,
  drainHttpServer,
  isUntracedPath,
  serveHandedConnections,
  metricsHandler,
  seriesByLabels,
  talliedHttpRequestDuration,
  type HistogramSeries,
  type Logger,
} from '@gateway/telemetry';
import express from 'express';
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { requestIdOf, sendProblem } from '@gateway/errors';
import type { NatsConnection } from 'nats';
import type { Config } from './config';
import { answerClientError } from './gateway/client-error';
import { createGatewayHandler } from './gateway/gateway.handler';
import { bypassInstrumentedEmit, requestRunner } from './http/request-span';
import { TurnBatchedResponse } from './http/turn-batched-response';

export interface EdgeAuth {
  server: Server;
  stop(): Promise<void>;
}

/** Builds the REST ingress: health, metrics, and one handler for /v1/me and /v1/{provider}/... */
export async function startEdgeAuth(config: Config, logger: Logger): Promise<EdgeAuth> {
  const registry = createMetrics('edge-auth');
  const duration = talliedHttpRequestDuration(registry);
  const outcomes = createCounter<'code'>(registry, {
    name: 'edge_responses_total',
    help: 'Answers of the REST gateway by gateway code (ok for forwarded platform answers).',
    labelNames: ['code'],
  });

  const stageDuration = createTalliedHistogram<'stage'>(registry, {
    name: 'edge_stage_duration_seconds',
    help: "How long the REST edge waited on each stage of a request: the quota-actor's verdict (decision), provider-proxy until the answer's head (provider).",
    labelNames: ['stage'],
  });
  const decisionStage = stageDuration.series({ stage: 'decision' });
  const providerStage = stageDuration.series({ stage: 'provider' });

  const heldRefusals = createCounter<'code'>(registry, {
    name: 'edge_held_refusals_total',
    help: 'Refusals the edge repeated itself, without asking the quota-actor, while the actor said they hold.',
    labelNames: ['code'],
  });

  // One series per code, looked up once and counted in plain numbers (counterSeries).
  const heldSeries = new Map<string, { inc(): void }>();
  const heldRefusalSeries = (code: string) => {
    let series = heldSeries.get(code);
    if (series === undefined) heldSeries.set(code, (series = counterSeries(heldRefusals, { code })));
    return series;
  };

  const nc: NatsConnection = await connectNats(config.NATS_URL, 'edge-auth');
  const decisions = new DecisionClient(nc, {
    partitions: config.PARTITIONS,
    subjectPrefix: config.SUBJECT_PREFIX,
    retryBudgetMs: config.DECISION_BUDGET_MS,
    holdRefusals: config.HOLD_REFUSALS,
    onHeldRefusal: (verdict) => heldRefusalSeries(verdict.ok ? 'ok' : verdict.code).inc(),
  });
  const caller: ProviderCaller = createProviderCaller({
    transport: config.PROVIDER_PROXY_TRANSPORT,
    address: config.PROVIDER_PROXY_ADDRESS,
    streams: config.PROVIDER_PROXY_STREAMS,
  });

  const gateway = createGatewayHandler({
    decisions: failFastWhileDisconnected(decisions, nc),
    caller,
    clientAddress: createClientAddressResolver(config.TRUSTED_PROXY_CIDRS),
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    gzipMinBytes: config.GZIP_MIN_BYTES,
    logger,
    stages: {
      decision: (seconds) => decisionStage.observe(seconds),
      provider: (seconds) => providerStage.observe(seconds),
    },
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const ready = !nc.isClosed();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable' });
  });
  // One of several worker processes: a scrape answers every worker's series, summed.
  app.get('/metrics', cluster.isWorker ? clusterMetricsHandler(registry) : metricsHandler(registry));
  app.use((req, res) => sendProblem(res, 'not_found', requestIdOf(req.headers['x-request-id'])));

  // The gateway's own paths skip Express: no router, no middleware, one handler (docs/benchmarks.md: Express alone
  // costs several times a bare node:http answer). Health, readiness and metrics stay on the Express app.
  // The labelled series of each route, method and status, looked up once (no key string per answer), then observed
  // with no label work (TalliedHistogram, counterSeries): a cost paid per answer, on the refusal path too.
  const seriesOf = seriesByLabels(
    (route: string, method: string, status: number): { duration: HistogramSeries; outcome: { inc(): void } } => ({
      duration: duration.series({ route, method, status_code: String(status) }),
      outcome: counterSeries(outcomes, { code: status < 400 ? 'ok' : String(status) }),
    }),
  );
  const inRequestSpan = requestRunner();
  const server = createServer({ ServerResponse: TurnBatchedResponse }, (req, res) => {
    if (!isGatewayPath(req.url))
      return isUntracedPath(req.url) ? app(req, res) : inRequestSpan(undefined, req, res, app);
    const started = performance.now();
    const route = req.url!.startsWith('/v1/me') ? '/v1/me' : '/v1/:provider/*';
    res.on('finish', () => {
      const series = seriesOf(route, req.method ?? 'GET', res.statusCode);
      series.duration.observe((performance.now() - started) / 1000);
      series.outcome.inc();
    });
    inRequestSpan(route, req, res, gateway);
  });
  // Every request's span is started above, not by the http auto-instrumentation (request-span.ts).
  bypassInstrumentedEmit(server);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // A worker of several (WORKERS) serves the connections its primary hands it; one process listens itself.
  const handed = cluster.isWorker ? serveHandedConnections(server) : undefined;
  if (handed === undefined) await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  return {
    server,
    async stop() {
      await drainHttpServer(server, undefined, handed);
      caller.close();
      await nc.drain();
    },
  };
}

/** /v1 and everything under it (the handler itself tells /v1/me, providers and unknown paths apart). */
function isGatewayPath(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/v1/') || url === '/v1' || url.startsWith('/v1?'));
}
