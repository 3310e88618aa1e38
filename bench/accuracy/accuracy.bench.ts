import { partitionOf } from '@gateway/decisions';
import type { RunningService } from '@gateway/testing';
import { performance } from 'node:perf_hooks';
import { connect, type KV, type NatsConnection } from 'nats';
import { ConfigSchema as ActorConfigSchema } from '../../services/quota-actor/src/config';
import { GatewayClient, OutcomeCounter } from '../load/http-client';
import { sleep, waitFor } from '../lib/process';
import { SampleBuffer, summarize } from '../lib/stats';
import type { BenchEnvironment, BenchKey } from '../setup/bench-environment';

const USAGE_FLUSH_MS = ActorConfigSchema.shape.USAGE_FLUSH_MS.parse(undefined);

export interface AccuracySettings {
  hotKeySeconds: number;
  /** Offered rate as a multiple of the key's rate. */
  overload: number;
  clientsPerEdge: number;
  monthlyQuota: number;
  /** The crash run kills the owner once this share of the quota was admitted. */
  killAtShare: number;
}

export interface HotKeyResult {
  edges: number;
  rps: number;
  burst: number;
  offeredPerSecond: number;
  sent: number;
  /** Seconds from the first request sent to the last: the T of the limit. */
  seconds: number;
  /** Seconds from the first request sent to the last answer: decisions all fall in this window. */
  answerSeconds: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** burst + rps * answerSeconds: what the limiter may admit when decisions spread over the answer window. */
  limitOverAnswers: number;
  admitted: number;
  /** burst + rps * seconds */
  limit: number;
  deviation: number;
  outcomes: Record<string, number>;
  withinTwoPercent: boolean;
}

export interface QuotaResult {
  kill9: boolean;
  /** Keys of the one customer the run drains (2: on two owner nodes, drawing from the customer's month). */
  keys: number;
  edges: number;
  clients: number;
  monthlyQuota: number;
  chunk: number;
  admitted: number;
  /** Admitted beyond monthly_quota: must be 0. */
  extra: number;
  /** Units the ledger counts that nobody was admitted for (a dead owner's unused reservation). */
  lost: number;
  ledgerUsed: number;
  sandboxRequests: number;
  outcomes: Record<string, number>;
  seconds: number;
  /**
   * gapToNextAdmitMs: from the kill to the first admission of a request sent after it (the takeover); keysOwned: the
   * run's keys whose partitions the killed node held when it was killed (each can lose one chunk).
   */
  killedActor?: { nodeId: string; afterAdmitted: number; gapToNextAdmitMs: number | null; keysOwned: number };
  /** Most units a crash may cost: one chunk per key the killed node held, plus one unanswered decision per client. */
  lossBound: number;
  met: boolean;
}

export interface AccuracySection {
  settings: AccuracySettings;
  hotKey: HotKeyResult;
  quota: QuotaResult;
  quotaCrash: QuotaResult;
  /** Two keys of one customer, owned by the two actor nodes, with a kill -9 of one owner. */
  customerCrash: QuotaResult;
}

async function sandboxSeq(env: BenchEnvironment): Promise<number> {
  return (await env.fixtures.sandboxRequests(Number.MAX_SAFE_INTEGER)).lastSeq;
}

/** The holders of keys' partition leases, read over one NATS connection kept open while it is needed. */
class LeaseReader {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly partitions: number,
  ) {}

  static async open(env: BenchEnvironment): Promise<LeaseReader> {
    const nc = await connect({ servers: env.nats.url });
    const kv = await nc.jetstream().views.kv(env.cluster.sharedEnv.LEASE_BUCKET!);
    return new LeaseReader(nc, kv, Number(env.cluster.sharedEnv.PARTITIONS));
  }

  /** Each key's lease holder now ('' while its partition is released between two owners). */
  holders(keys: BenchKey[]): Promise<string[]> {
    return Promise.all(
      keys.map(async (key) => {
        const entry = await this.kv.get(`p${partitionOf(key.hash, this.partitions)}`);
        if (entry?.operation !== 'PUT') return '';
        const lease = JSON.parse(entry.string()) as { owner: string; released?: unknown };
        return lease.released ? '' : lease.owner;
      }),
    );
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}

/** The quota-actor that holds the lease of `key`'s partition, once no hand-over of it is under way. */
async function ownerOf(
  env: BenchEnvironment,
  leases: LeaseReader,
  key: BenchKey,
): Promise<{ nodeId: string; actor: RunningService }> {
  // A partition handed over between two nodes has a released lease for a moment: wait for its new owner.
  for (let attempt = 1; ; attempt++) {
    const [owner = ''] = await leases.holders([key]);
    // Actors are started in the order of their ids (bench-actor-3 replaces the one the first crash run killed).
    const index = ['bench-actor-1', 'bench-actor-2', 'bench-actor-3'].indexOf(owner);
    if (index >= 0 && env.cluster.actors[index]) return { nodeId: owner, actor: env.cluster.actors[index]! };
    if (attempt >= 50) throw new Error(`the partition of ${key.keyId} is held by "${owner}" after 10 s`);
    await sleep(200);
  }
}

/** Waits until the live quota-actors hold every partition, evenly (their counts differ by at most one). */
async function evenSplit(env: BenchEnvironment, failure: string): Promise<void> {
  const partitions = Number(env.cluster.sharedEnv.PARTITIONS);
  await waitFor(
    async () => {
      const owned = await Promise.all(env.liveActors().map(partitionsOwned));
      const total = owned.reduce((sum, count) => sum + count, 0);
      return owned.length === 2 && total === partitions && Math.max(...owned) - Math.min(...owned) <= 1;
    },
    30_000,
    failure,
  );
}

async function partitionsOwned(actor: RunningService): Promise<number> {
  const health = (await (await fetch(`${actor.url}/healthz`)).json()) as { partitions: number };
  return health.partitions;
}

/**
 * One hot key offered `overload` times its rate through two edges, open loop (requests leave on schedule
 * whatever the answers do), alternating edges. Admitted must be within 2% of burst + rps * T.
 */
async function hotKeyRun(
  env: BenchEnvironment,
  edges: RunningService[],
  settings: AccuracySettings,
): Promise<HotKeyResult> {
  const { path, query } = env.platformPathAndQuery();
  const target = `/v1/video-ads${path}?${query}`;
  const { rps, burst } = env.plans.load;
  const rate = rps * settings.overload;
  const total = Math.round(rate * settings.hotKeySeconds);
  const clients = edges.map((edge) => new GatewayClient(edge.url, 256));
  const counter = new OutcomeCounter();
  const pending: Promise<void>[] = [];
  const latencies = new SampleBuffer();
  let lastAnswer = 0;
  const intervalMs = 1000 / rate;
  let sent = 0;
  let firstSent = 0;
  let lastSent = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - started) / intervalMs) + 1);
      while (sent < due) {
        const client = clients[sent % clients.length]!;
        const at = performance.now();
        if (sent === 0) firstSent = at;
        lastSent = at;
        pending.push(
          client.get(target, env.hotKey.secret).then((outcome) => {
            lastAnswer = performance.now();
            latencies.push(lastAnswer - at);
            counter.add(outcome);
          }),
        );
        sent++;
      }
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  for (const client of clients) client.close();
  const seconds = (lastSent - firstSent) / 1000;
  const answerSeconds = (lastAnswer - firstSent) / 1000;
  const limit = burst + rps * seconds;
  const latency = summarize(latencies.values());
  const deviation = (counter.ok - limit) / limit;
  return {
    edges: edges.length,
    rps,
    burst,
    offeredPerSecond: rate,
    sent,
    seconds,
    answerSeconds,
    latencyMs: { p50: latency.p50, p99: latency.p99, max: latency.max },
    limitOverAnswers: burst + rps * answerSeconds,
    admitted: counter.ok,
    limit,
    deviation,
    outcomes: counter.byCode,
    withinTwoPercent: Math.abs(deviation) <= 0.02,
  };
}

/**
 * Block mode under contention: 2 edges x N closed-loop clients spread over the keys of one customer until every
 * client has seen quota_exceeded. Optionally kill -9 the owner of the first key mid-run; the other actor takes the
 * partition over.
 */
async function quotaRun(
  env: BenchEnvironment,
  edges: RunningService[],
  keys: BenchKey[],
  settings: AccuracySettings,
  kill9: boolean,
  log: (message: string) => void,
): Promise<QuotaResult> {
  const { path, query } = env.platformPathAndQuery();
  const target = `/v1/video-ads${path}?${query}`;
  const quota = env.plans.quota.monthlyQuota;
  const clients = edges.map((edge) => new GatewayClient(edge.url, settings.clientsPerEdge));
  const counter = new OutcomeCounter();
  const seqBefore = await sandboxSeq(env);
  const leases = kill9 ? await LeaseReader.open(env) : undefined;
  const owner = leases ? await ownerOf(env, leases, keys[0]!) : undefined;
  let killing = false;
  let killedAt: number | null = null;
  let killedAfter = 0;
  let keysOnKilled = 0;
  let firstAdmitAfterKill: number | null = null;
  const deadline = Date.now() + 60_000;
  const maxRequests = quota * 10;
  const started = performance.now();

  let kill: Promise<unknown> = Promise.resolve();
  const worker = async (client: GatewayClient, key: BenchKey) => {
    while (Date.now() < deadline && counter.total < maxRequests) {
      const sentAt = performance.now();
      const outcome = await client.get(target, key.secret);
      counter.add(outcome);
      // The first admission of a request sent after the kill: how long the key had no owner.
      if (outcome.code === 'ok' && killedAt !== null && sentAt > killedAt && firstAdmitAfterKill === null) {
        firstAdmitAfterKill = performance.now();
      }
      if (owner && leases && !killing && counter.ok >= quota * settings.killAtShare) {
        killing = true;
        // Read right before the kill (one round trip): which of the run's keys the killed node holds.
        kill = leases.holders(keys).then((holders) => {
          keysOnKilled = holders.filter((holder) => holder === owner.nodeId).length;
          killedAt = performance.now();
          killedAfter = counter.ok;
          log(`accuracy: kill -9 ${owner.nodeId} (pid ${owner.actor.process.pid}) after ${killedAfter} admitted`);
          return owner.actor.kill9();
        });
      }
      if (outcome.code === 'quota_exceeded') return;
    }
  };
  await Promise.all(
    clients.flatMap((client) =>
      Array.from({ length: settings.clientsPerEdge }, (_, i) => worker(client, keys[i % keys.length]!)),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await kill.finally(() => leases?.close());
  for (const client of clients) client.close();
  await sleep(USAGE_FLUSH_MS + 500); // one usage flush interval of the actors (their default) and then some
  const month = new Date().toISOString().slice(0, 7);
  const ledgerUsed = (
    await env.fixtures.store.usage.customerMonth(
      keys.map((key) => key.keyId),
      month,
    )
  ).used;
  const sandboxRequests = (await sandboxSeq(env)) - seqBefore;
  const admitted = counter.ok;
  const extra = Math.max(0, admitted - quota);
  const lossBound = env.plans.quota.chunk * keysOnKilled + edges.length * settings.clientsPerEdge;
  const result: QuotaResult = {
    kill9,
    keys: keys.length,
    edges: edges.length,
    clients: edges.length * settings.clientsPerEdge,
    monthlyQuota: quota,
    chunk: env.plans.quota.chunk,
    admitted,
    extra,
    lost: ledgerUsed - admitted,
    ledgerUsed,
    sandboxRequests,
    outcomes: counter.byCode,
    seconds,
    lossBound,
    // A crash costs at most one chunk per key the dead owner held, plus its decisions whose answers never left it
    // (one per client).
    met: kill9 ? extra === 0 && quota - admitted <= lossBound : admitted === quota,
  };
  if (owner) {
    result.killedActor = {
      nodeId: owner.nodeId,
      afterAdmitted: killedAfter,
      keysOwned: keysOnKilled,
      gapToNextAdmitMs:
        killedAt !== null && firstAdmitAfterKill !== null ? (firstAdmitAfterKill as number) - killedAt : null,
    };
  }
  return result;
}

/** Section 3. Needs two quota-actors (one survives the kill); the second one is started here. */
export async function runAccuracyBench(
  env: BenchEnvironment,
  settings: AccuracySettings,
  log: (message: string) => void,
): Promise<AccuracySection> {
  const edges = [env.edges.stream, await env.secondEdge()];
  if (env.cluster.actors.length < 2) {
    log('accuracy: starting a second quota-actor and waiting for the partitions to split');
    await env.cluster.startActor({ NODE_ID: 'bench-actor-2' });
  }
  // Evenly: a partition still moving during the hot-key run would measure the handover, not the limiter.
  await evenSplit(env, 'the two quota-actors did not split the partitions');

  const hotKey = await hotKeyRun(env, edges, settings);
  log(
    `accuracy: hot key admitted ${hotKey.admitted} of limit ${hotKey.limit.toFixed(1)} ` +
      `(${(hotKey.deviation * 100).toFixed(2)}%) over ${hotKey.seconds.toFixed(2)} s`,
  );
  const quota = await quotaRun(env, edges, [env.quotaKeys.plain], settings, false, log);
  log(`accuracy: block quota admitted ${quota.admitted} of ${quota.monthlyQuota}`);
  const quotaCrash = await quotaRun(env, edges, [env.quotaKeys.crash], settings, true, log);
  log(
    `accuracy: block quota with kill -9 admitted ${quotaCrash.admitted} of ${quotaCrash.monthlyQuota} ` +
      `(extra ${quotaCrash.extra}, lost ${quotaCrash.lost})`,
  );
  log('accuracy: starting bench-actor-3 in place of the actor the crash run killed');
  await env.cluster.startActor({ NODE_ID: 'bench-actor-3' });
  // The customer's second key must stay where it is: a node that is still handing partitions over (one per tick)
  // could move it onto the node the run kills, which then holds both keys.
  await evenSplit(env, 'bench-actor-3 did not take its share of the partitions');
  const customerCrash = await quotaRun(env, edges, await keysOnTwoOwners(env), settings, true, log);
  log(
    `accuracy: customer quota, two keys on two owners, kill -9 of one: admitted ${customerCrash.admitted} of ` +
      `${customerCrash.monthlyQuota} (extra ${customerCrash.extra}, lost ${customerCrash.lost})`,
  );
  return { settings, hotKey, quota, quotaCrash, customerCrash };
}

/** A new block-mode customer with two keys whose partitions the two actor nodes own. */
async function keysOnTwoOwners(env: BenchEnvironment): Promise<BenchKey[]> {
  const fixtures = env.fixtures;
  const customer = await fixtures.customer('growth');
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const newKey = async (): Promise<BenchKey> => {
    const created = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
    return { secret: created.secret, hash: created.key.hash, keyId: created.key.key_id };
  };
  const leases = await LeaseReader.open(env);
  try {
    const first = await newKey();
    const firstOwner = (await ownerOf(env, leases, first)).nodeId;
    for (let attempt = 0; attempt < 64; attempt++) {
      const second = await newKey();
      if ((await ownerOf(env, leases, second)).nodeId !== firstOwner) return [first, second];
    }
  } finally {
    await leases.close();
  }
  throw new Error('no key of the customer landed on the second quota-actor');
}
