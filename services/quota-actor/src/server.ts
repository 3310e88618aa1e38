import { connectNats, type Verdict } from '@gateway/decisions';
import { openStore, type Store } from '@gateway/store';
import {
  counterSeries,
  createCounter,
  createHistogram,
  createMetrics,
  metricsHandler,
  seriesByLabels,
  type Logger,
} from '@gateway/telemetry';
import { Gauge } from 'prom-client';
import { createServer, type Server } from 'node:http';
import type { NatsConnection } from 'nats';
import type { Config } from './config';
import { CustomerAllowance } from './limits/customer-allowance';
import { CustomerMonth } from './limits/customer-month';
import { fenceModeOf, UsageLedger } from './limits/usage-ledger';
import { CoalescedKeyLoader } from './partition/coalesced-key-loader';
import { ActorNode } from './ownership/actor.node';

export interface QuotaActor {
  node: ActorNode;
  http: Server;
  stop(): Promise<void>;
}

/** Wires NATS, MongoDB, the actor node and the health/metrics listener. */
export async function startQuotaActor(config: Config, logger: Logger): Promise<QuotaActor> {
  const registry = createMetrics('quota-actor');
  const decisions = createCounter<'outcome'>(registry, {
    name: 'limiter_decisions_total',
    help: 'Decisions by outcome (admitted, or the error code).',
    labelNames: ['outcome'],
  });
  // One series per outcome, looked up once and counted in a plain number: a cost paid on every decision.
  const decisionSeries = seriesByLabels((outcome: string) => counterSeries(decisions, { outcome }));
  const reservations = createHistogram<'outcome'>(registry, {
    name: 'quota_reservation_seconds',
    help: 'How long a block-mode reservation took the ledger (customer allowance step and key month), by outcome.',
    labelNames: ['outcome'],
  });
  const owned = new Gauge({
    name: 'gateway_partitions_owned',
    help: 'Partitions this actor currently owns.',
    registers: [registry],
  });

  const store: Store = await openStore(config.MONGODB_URI, { ensureIndexes: true });
  const fence = await fenceModeOf(store.connection);
  logger.info({ fence }, 'usage writes fenced');
  const customerMonth = new CustomerMonth(store.connection, { refreshMs: config.CUSTOMER_MONTH_REFRESH_MS });
  const nc: NatsConnection = await connectNats(config.NATS_URL, `quota-actor ${config.NODE_ID}`);
  const node = new ActorNode(
    {
      nodeId: config.NODE_ID,
      partitions: config.PARTITIONS,
      subjectPrefix: config.SUBJECT_PREFIX,
      leaseBucket: config.LEASE_BUCKET,
      leaseTtlMs: config.LEASE_TTL_MS,
      leaseMarginMs: config.LEASE_MARGIN_MS,
      tickMs: config.OWNERSHIP_TICK_MS,
      flushIntervalMs: config.USAGE_FLUSH_MS,
      negativeTtlMs: config.NEGATIVE_CACHE_MS,
      recordTtlMs: config.RECORD_REFRESH_MS,
      idleEvictMs: config.IDLE_KEY_EVICT_MS,
    },
    {
      nc,
      loader: new CoalescedKeyLoader(store.decisions),
      ledger: new UsageLedger(store.connection, fence, { longestFlushWaitMs: config.USAGE_FLUSH_MS }),
      allowance: new CustomerAllowance(store.connection, (customerId, month, kind) =>
        customerMonth.unitsBefore(customerId, month, kind),
      ),
      customerMonth,
      logger,
      onDecision: (verdict: Verdict) => decisionSeries(verdict.ok ? 'admitted' : verdict.code).inc(),
      onReservation: (seconds, outcome) => reservations.observe({ outcome }, seconds),
      onOwnershipChange: (count) => owned.set(count),
    },
  );
  await node.start();

  const serveMetrics = metricsHandler(registry);
  const http = createServer((req, res) => {
    if (req.url === '/metrics') return serveMetrics(req, res);
    if (req.url === '/healthz' || req.url === '/readyz') {
      const ready = !nc.isClosed();
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ready ? 'ok' : 'unavailable', partitions: node.ownedPartitions.length }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(config.HTTP_PORT, config.HOST, resolve));

  return {
    node,
    http,
    async stop() {
      http.close();
      await node.stop();
      await nc.drain();
      await store.close();
    },
  };
}
