/**
 * The client side of the limiter benchmark, one process per run (started by limiter.bench.ts):
 * C closed-loop workers each ask for one decision for a random key of N, wait for it, and ask again.
 * The same loop, key choice and batching rule (everything asked in one event-loop turn goes out together)
 * drive both targets:
 *  - actor: DecisionClient -> NATS -> quota-actor, either the full 'forward' verdict (key, address, rate,
 *    provider, path, account and the month's usage) or the rate-only 'free' verdict (key, address, rate);
 *  - gubernator: one gRPC GetRateLimits per turn (at most 1000 requests each, Gubernator's batch limit),
 *    LEAKY_BUCKET with the plan's rate and burst, i.e. the same GCRA bucket the actor keeps.
 * Prints one line `LIMITER_JSON {...}`.
 */
import { DecisionClient, type DecisionRequest } from '@gateway/decisions';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from 'nats';
import type { CpuUsage } from '../lib/cpu-meter';
import { SampleBuffer, summarize } from '../lib/stats';
import { warmUntilSteady, type WarmUp } from '../load/warm-up';

export interface LimiterClientConfig {
  target: 'actor' | 'gubernator';
  /**
   * actor only: 'forward' is the gateway's real verdict (every check and the month's usage); 'free' checks key,
   * address and rate only, which is all Gubernator decides.
   */
  intent: 'forward' | 'free';
  concurrency: number;
  /** The warm-up lasts at least this long, then until the rate stops climbing (warmUntilSteady)... */
  warmupMs: number;
  /** ...or this long at most. */
  warmupMaxMs: number;
  durationMs: number;
  /** actor: key hashes; gubernator: the same keys' ids (any unique string per key). */
  keys: string[];
  actor?: { natsUrl: string; partitions: number; subjectPrefix: string };
  gubernator?: { address: string; rps: number; burst: number };
}

export interface LimiterClientResult {
  target: 'actor' | 'gubernator';
  intent: 'forward' | 'free';
  concurrency: number;
  keys: number;
  seconds: number;
  decisions: number;
  decisionsPerSecond: number;
  admitted: number;
  rejected: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Sent batches (NATS requests or GetRateLimits calls) during the window, and decisions per batch. */
  batches: number;
  meanBatch: number;
  /** CPU of this client process during the window, % of one core. */
  clientCpuPercent: number;
  /** Decisions per second of each 1 s warm-up window before the measured one. */
  warmUp: WarmUp;
  /** Filled in by the orchestrator: every process's CPU during the window. */
  cpu?: CpuUsage;
}

/** One decision: admitted, or the reason it was not. */
type Decide = (key: string) => Promise<true | string>;

interface Target {
  decide: Decide;
  batches(): number;
  close(): Promise<void>;
}

async function actorTarget(
  config: NonNullable<LimiterClientConfig['actor']>,
  intent: LimiterClientConfig['intent'],
): Promise<Target> {
  const nc = await connect({ servers: config.natsUrl, name: 'bench limiter client' });
  const client = new DecisionClient(nc, { partitions: config.partitions, subjectPrefix: config.subjectPrefix });
  let batches = 0;
  // Counts the batches by wrapping the connection's publish (the client publishes one request per batch).
  const publish = nc.publish.bind(nc);
  nc.publish = (...args: Parameters<typeof nc.publish>) => {
    batches++;
    publish(...args);
  };
  return {
    decide: async (keyHash) => {
      const request: DecisionRequest = {
        keyHash,
        ip: '127.0.0.1',
        intent,
        ...(intent === 'forward' ? { provider: 'video-ads', pathAllowed: true } : {}),
      };
      const verdict = await client.decide(request);
      return verdict.ok ? true : verdict.code;
    },
    batches: () => batches,
    close: () => nc.drain(),
  };
}

interface RateLimitResp {
  status: string;
  error: string;
}

type GetRateLimits = (
  request: { requests: object[] },
  callback: (error: grpc.ServiceError | null, response?: { responses: RateLimitResp[] }) => void,
) => void;

function gubernatorTarget(config: NonNullable<LimiterClientConfig['gubernator']>): Target {
  const definition = protoLoader.loadSync(join(__dirname, '..', 'baselines', 'gubernator.proto'), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    pb: { gubernator: { V1: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client } };
  };
  const client = new pkg.pb.gubernator.V1(config.address, grpc.credentials.createInsecure());
  const getRateLimits = (client as unknown as { GetRateLimits: GetRateLimits }).GetRateLimits.bind(client);
  let queue: { key: string; resolve: (outcome: true | string) => void }[] = [];
  let scheduled = false;
  let batches = 0;
  const flush = () => {
    scheduled = false;
    const pending = queue;
    queue = [];
    for (let start = 0; start < pending.length; start += 1000) {
      const chunk = pending.slice(start, start + 1000);
      batches++;
      getRateLimits(
        {
          requests: chunk.map((item) => ({
            name: 'bench',
            unique_key: item.key,
            hits: 1,
            limit: config.rps,
            duration: 1000,
            algorithm: 'LEAKY_BUCKET',
            behavior: 0,
            burst: config.burst,
          })),
        },
        (error, response) => {
          chunk.forEach((item, index) => {
            const answer = response?.responses[index];
            if (error || !answer) item.resolve(error ? `grpc_${error.code}` : 'no_answer');
            else if (answer.error) item.resolve('error');
            else item.resolve(answer.status === 'UNDER_LIMIT' ? true : 'rate_limited');
          });
        },
      );
    }
  };
  return {
    decide: (key) =>
      new Promise((resolve) => {
        queue.push({ key, resolve });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }),
    batches: () => batches,
    close: async () => client.close(),
  };
}

async function main(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LimiterClientConfig;
  const target =
    config.target === 'actor' ? await actorTarget(config.actor!, config.intent) : gubernatorTarget(config.gubernator!);
  const keys = config.keys;

  // Every key once, so the server has loaded (actor) or created (gubernator) every bucket before timing. How long
  // that took, and what it answered, is reported: a slow or failing warm-up is the first clue when a run stalls.
  const warmup = { startedMs: performance.now(), slowest: [] as { key: string; ms: number; outcome: string }[] };
  const warmupOutcomes: Record<string, number> = {};
  const warmupLatencies = new SampleBuffer();
  for (let start = 0; start < keys.length; start += config.concurrency) {
    await Promise.all(
      keys.slice(start, start + config.concurrency).map(async (key) => {
        const asked = performance.now();
        const outcome = await target.decide(key);
        const ms = performance.now() - asked;
        const label = outcome === true ? 'admitted' : outcome;
        warmupOutcomes[label] = (warmupOutcomes[label] ?? 0) + 1;
        warmupLatencies.push(ms);
        warmup.slowest.push({ key: key.slice(0, 12), ms: Math.round(ms), outcome: label });
        warmup.slowest = warmup.slowest.sort((a, b) => b.ms - a.ms).slice(0, 5);
      }),
    );
  }
  process.stdout.write(
    `LIMITER_WARMUP ${JSON.stringify({
      seconds: Math.round(performance.now() - warmup.startedMs) / 1000,
      outcomes: warmupOutcomes,
      latencyMs: summarize(warmupLatencies.values()),
      slowest: warmup.slowest,
    })}\n`,
  );

  const samples = new SampleBuffer();
  const rejected: Record<string, number> = {};
  let admitted = 0;
  let decisions = 0;
  /** Every decision, warm-up included: the warm-up's windows are rated by it. */
  let answered = 0;
  let windowStarts = Number.POSITIVE_INFINITY;
  let windowEnds = Number.POSITIVE_INFINITY;

  const worker = async () => {
    for (;;) {
      const started = performance.now();
      if (started >= windowEnds) return;
      const key = keys[Math.floor(Math.random() * keys.length)]!;
      const outcome = await target.decide(key);
      const ended = performance.now();
      answered++;
      if (started < windowStarts || ended > windowEnds) continue;
      decisions++;
      samples.push(ended - started);
      if (outcome === true) admitted++;
      else rejected[outcome] = (rejected[outcome] ?? 0) + 1;
    }
  };
  const workers = Promise.all(Array.from({ length: config.concurrency }, () => worker()));
  // The same rule as the gateway's targets: neither target is steady at once (the actor runs code V8 has not
  // optimized yet, and Gubernator's rate climbed for several seconds too), so a fixed warm-up measured both early.
  const warmUp = await warmUntilSteady(
    { windowSeconds: 1, minSeconds: config.warmupMs / 1000, maxSeconds: config.warmupMaxMs / 1000 },
    async (seconds) => {
      const before = answered;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      return (answered - before) / seconds;
    },
  );
  const batchesAtStart = target.batches();
  const cpuAtStart = process.cpuUsage();
  // The orchestrator measures the servers' CPU between these two lines.
  process.stdout.write('LIMITER_WINDOW start\n');
  windowStarts = performance.now();
  windowEnds = windowStarts + config.durationMs;
  await workers;
  process.stdout.write('LIMITER_WINDOW end\n');
  const cpu = process.cpuUsage(cpuAtStart);
  const batches = target.batches() - batchesAtStart;
  const seconds = config.durationMs / 1000;
  const result: LimiterClientResult = {
    target: config.target,
    intent: config.intent,
    concurrency: config.concurrency,
    keys: keys.length,
    seconds,
    decisions,
    decisionsPerSecond: decisions / seconds,
    admitted,
    rejected,
    latencyMs: summarize(samples.values()),
    batches,
    meanBatch: batches > 0 ? decisions / batches : Number.NaN,
    clientCpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / seconds) * 1000) / 10,
    warmUp,
  };
  process.stdout.write(`LIMITER_JSON ${JSON.stringify(result)}\n`);
  await target.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
