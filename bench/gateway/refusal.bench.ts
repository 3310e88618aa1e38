import { availableParallelism } from 'node:os';
import { startBareHttp, type ReplayedAnswer } from '../baselines/bare-http.baseline';
import { cpuByName, CpuMeter } from '../lib/cpu-meter';
import { settle } from '../lib/settle';
import { TARGET_BOUNDS } from './targets';
import { runWrk, type WrkResult, type WrkTarget } from '../load/wrk.runner';
import { warmUntilSteady, warmUpText, type WarmUp } from '../load/warm-up';
import type { SaturationSettings } from './gateway.bench';
import type { BenchEnvironment } from '../setup/bench-environment';

export type RefusalTargetName =
  'nginx-refusal' | 'gateway-refusal' | 'gateway-refusal-workers' | 'gateway-refusal-no-hold';

export interface RefusalFigures {
  name: RefusalTargetName;
  description: string;
  /** What one refused request was answered with (checked before the runs). */
  sample: { status: number; code: string | null; rateLimitHeader: boolean; retryAfter: string | null };
  /** 429 answers per second at saturation, best run. */
  refusedPerSecond: number;
  /** Admitted answers per second: the keys' own rate, tiny against the refusals. */
  okPerSecond: number;
  /** CPU time per answer by process (run 1), microseconds; `serverMicros` without the load generator. */
  cpu: { microsByProcess: Record<string, number>; serverMicros: number };
  runs: WrkResult[];
  /** The windows of load before the first measured run, 429/s (absent in older reports). */
  warmUp?: WarmUp;
}

export interface RefusalSection {
  /** Keys refused: one customer's keys on a metered plan of 1 request per second, burst 1. */
  keys: number;
  targets: RefusalFigures[];
  /** gateway-refusal's 429s per second / nginx-refusal's (one edge-auth process, as shipped). */
  refusedVsNginx: number;
  /**
   * gateway-refusal-workers' / nginx-refusal's: edge-auth with WORKERS = the machine's cores, as nginx runs
   * worker_processes auto (issue 17 target: at least 0.5).
   */
  refusedVsNginxWorkers: number;
  /** edge-auth's WORKERS in the workers row. */
  workers: number;
  /** The same without held refusals: what the refusal path costs when every refusal asks the quota-actor. */
  refusedVsNginxWithoutHold: number;
  /**
   * A bare node:http server in one process answering a small JSON (no key, no check), measured between the same runs:
   * the most a one-process edge built on node:http could answer here, as a ratio to nginx-refusal's 429s.
   */
  ceiling?: Ceiling;
  /**
   * A bare node:http server writing gateway-refusal's own refusal (its status, fields and body, a fresh request id
   * each, the answers of a turn ended together as edge-auth does): what node:http costs for the answer the spec asks
   * for, without the gateway's logic. Absent in reports made before 2026-12-04.
   */
  answerCeiling?: Ceiling;
  met: boolean;
}

interface Ceiling {
  answersPerSecond: number;
  vsNginx: number;
  cpuMicros: number;
}

/** How many keys the refusal load spreads over. */
export const REFUSAL_KEYS = 64;

/** What the refusal load's keys are, after their count (method texts). */
export const REFUSAL_KEYS_TEXT = 'keys of one customer on a metered plan of 1 request per second, burst 1';

/**
 * The answers a load run counts: every answer under the refusal load (nearly all 429s, which are what it measures),
 * the 2xx ones under the forward load.
 */
export function countedAnswers(refusal: boolean): { of(result: WrkResult): number; unit: string } {
  return refusal
    ? { of: (result) => result.requests, unit: 'answers' }
    : { of: (result) => result.requests - result.non2xx, unit: '2xx' };
}

/**
 * The refusal load's keys: one customer's, on a metered plan of 1 request per second, burst 1, so that nearly every
 * request of a saturating load is refused.
 */
export async function refusalKeys(env: BenchEnvironment): Promise<string[]> {
  const fixtures = env.fixtures;
  // Metered, as the gateway section's load keys: a block-mode customer takes its units from the allowance chain in
  // reservations, database writes per admitted request that belong to the forward path and cost FerretDB (the
  // MongoDB stand-in here) several ms each once the bench has filled its collections (docs/benchmarks.md).
  await fixtures.setPlan('trial', {
    rate_limit_rps: 1,
    rate_burst: 1,
    monthly_quota: 1_000_000_000,
    overage_mode: 'metered',
  });
  const customer = await fixtures.customer('trial');
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const keys: string[] = [];
  for (let i = 0; i < REFUSAL_KEYS; i++) {
    keys.push((await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] })).secret);
  }
  return keys;
}

/**
 * The refusal path (issue 17): keys far over their rate (1 request per second, burst 1) hammered at saturation,
 * through the gateway (edge-auth with held refusals, and an edge-auth with HOLD_REFUSALS=false) and through nginx
 * limit_req with the same rate and burst per key. Measures 429 answers per second and CPU per answer.
 */
export async function runRefusalBench(
  env: BenchEnvironment,
  wrk: string,
  nginxRefusalOrigin: string,
  saturation: SaturationSettings,
  runs: number,
  workDir: string,
  log: (message: string) => void,
): Promise<RefusalSection> {
  const keys = await refusalKeys(env);
  const { path, query } = env.platformPathAndQuery();
  const target = `/v1/video-ads${path}?${query}`;
  log('refusal: starting an edge-auth with HOLD_REFUSALS=false');
  const noHold = await env.cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream', HOLD_REFUSALS: 'false' });
  const workers = availableParallelism();
  log(`refusal: starting an edge-auth with WORKERS=${workers}`);
  const pooled = await env.cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream', WORKERS: String(workers) });
  const bare = await startBareHttp();
  const bareTarget: WrkTarget = { origin: bare.origin, target: '/', keys };
  const bareRuns: WrkResult[] = [];
  const replayRuns: WrkResult[] = [];
  let replay: { origin: string; stop(): Promise<void> } | undefined;
  try {
    const specs: { name: RefusalTargetName; description: string; wrk: WrkTarget }[] = [
      {
        name: 'nginx-refusal',
        description: 'load -> nginx limit_req (1 r/s, burst 1 per X-API-Key) -> 429',
        wrk: { origin: nginxRefusalOrigin, target: `/v1/refuse/video-ads${path}?${query}`, keys },
      },
      {
        name: 'gateway-refusal',
        description: 'load -> edge-auth, refusals held at the edge while the quota-actor says they hold -> 429',
        wrk: { origin: env.edges.stream.url, target, keys },
      },
      {
        name: 'gateway-refusal-workers',
        description: `load -> edge-auth with WORKERS=${workers} (node:cluster, like nginx's worker_processes auto), refusals held -> 429`,
        wrk: { origin: pooled.url, target, keys },
      },
      {
        name: 'gateway-refusal-no-hold',
        description: 'load -> edge-auth (HOLD_REFUSALS=false) -> NATS -> quota-actor -> 429',
        wrk: { origin: noHold.url, target, keys },
      },
    ];
    const samples = new Map<RefusalTargetName, RefusalFigures['sample']>();
    const warmUps = new Map<RefusalTargetName, WarmUp>();
    const warm = async (target: WrkTarget, rateOf: (run: WrkResult) => number) =>
      warmUntilSteady(
        {
          windowSeconds: saturation.warmupSeconds,
          minSeconds: saturation.minWarmupSeconds,
          maxSeconds: saturation.maxWarmupSeconds,
        },
        async (seconds) => rateOf(await runWrk(wrk, workDir, target, { ...saturation, seconds })),
      );
    for (const spec of specs) {
      const warmUp = await warm(spec.wrk, (run) => run.non2xx / run.seconds);
      warmUps.set(spec.name, warmUp);
      log(`refusal: warm-up ${spec.name}: ${warmUpText(warmUp)} (429/s)`);
      samples.set(spec.name, await sampleRefusal(spec.wrk));
    }
    const bareWarmUp = await warm(bareTarget, (run) => run.okPerSecond);
    log(`refusal: warm-up bare node:http: ${warmUpText(bareWarmUp)}`);
    const edgeAnswer = await sampleAnswer(specs.find((spec) => spec.name === 'gateway-refusal')!.wrk);
    replay = await startBareHttp(edgeAnswer);
    const replayTarget: WrkTarget = { origin: replay.origin, target: '/', keys };
    const replayWarmUp = await warm(replayTarget, (run) => run.non2xx / run.seconds);
    log(`refusal: warm-up bare node:http writing the edge's refusal: ${warmUpText(replayWarmUp)} (429/s)`);
    const results = new Map<RefusalTargetName, WrkResult[]>(specs.map((spec) => [spec.name, []]));
    for (let run = 1; run <= runs; run++) {
      await settle(15_000);
      const meter = new CpuMeter();
      const bareRun = await runWrk(wrk, workDir, bareTarget, saturation);
      bareRun.cpu = meter.stop();
      bareRuns.push(bareRun);
      log(`refusal: wrk ${'bare node:http'.padEnd(24)} run ${run}: ${Math.round(bareRun.okPerSecond)} 2xx/s (ceiling)`);
      await settle(15_000);
      const replayMeter = new CpuMeter();
      const replayRun = await runWrk(wrk, workDir, replayTarget, saturation);
      replayRun.cpu = replayMeter.stop();
      replayRuns.push(replayRun);
      log(
        `refusal: wrk ${'bare, the edge refusal'.padEnd(24)} run ${run}: ${Math.round(replayRun.non2xx / replayRun.seconds)} 429/s`,
      );
      for (const spec of specs) {
        await settle(15_000);
        const measure = async () => {
          const meter = new CpuMeter();
          const result = await runWrk(wrk, workDir, spec.wrk, saturation);
          result.cpu = meter.stop();
          return result;
        };
        const edge = spec.name === 'gateway-refusal' ? env.edges.stream : undefined;
        const result =
          run === 1 && edge ? await env.profile(`refusal, ${spec.name} saturation`, [edge], measure) : await measure();
        results.get(spec.name)!.push(result);
        log(
          `refusal: wrk ${spec.name.padEnd(24)} run ${run}: ${Math.round(result.non2xx / result.seconds)} 429/s, ` +
            `${Math.round(result.okPerSecond)} 2xx/s, p99 ${result.latencyMs.p99.toFixed(2)} ms`,
        );
      }
    }
    const targets: RefusalFigures[] = specs.map((spec) => {
      const runsOf = results.get(spec.name)!;
      return {
        name: spec.name,
        description: spec.description,
        sample: samples.get(spec.name)!,
        refusedPerSecond: Math.max(...runsOf.map((run) => run.non2xx / run.seconds)),
        okPerSecond: Math.max(...runsOf.map((run) => run.okPerSecond)),
        cpu: cpuPerAnswer(runsOf[0]),
        runs: runsOf,
        warmUp: warmUps.get(spec.name),
      };
    });
    const refused = (name: RefusalTargetName) => targets.find((figures) => figures.name === name)!.refusedPerSecond;
    const refusedVsNginx = refused('gateway-refusal') / refused('nginx-refusal');
    const refusedVsNginxWorkers = refused('gateway-refusal-workers') / refused('nginx-refusal');
    const sampled = samples.get('gateway-refusal-workers')!;
    const bareAnswers = Math.max(...bareRuns.map((run) => run.okPerSecond));
    const replayAnswers = Math.max(...replayRuns.map((run) => run.non2xx / run.seconds));
    return {
      keys: keys.length,
      targets,
      refusedVsNginx,
      refusedVsNginxWorkers,
      workers,
      refusedVsNginxWithoutHold: refused('gateway-refusal-no-hold') / refused('nginx-refusal'),
      ceiling: {
        answersPerSecond: bareAnswers,
        vsNginx: bareAnswers / refused('nginx-refusal'),
        cpuMicros: cpuPerAnswer(bareRuns[0]).serverMicros,
      },
      answerCeiling: {
        answersPerSecond: replayAnswers,
        vsNginx: replayAnswers / refused('nginx-refusal'),
        cpuMicros: cpuPerAnswer(replayRuns[0]).serverMicros,
      },
      met: refusedVsNginxWorkers >= TARGET_BOUNDS.refusalVsNginx && sampled.status === 429 && sampled.rateLimitHeader,
    };
  } finally {
    await noHold.stop();
    await pooled.stop();
    await bare.stop();
    await replay?.stop();
  }
}

/** A refused request of the target's first key: the first refusal of up to five in a row (one may find a unit). */
async function sampleRefusal(target: WrkTarget): Promise<RefusalFigures['sample']> {
  const ask = () => fetch(`${target.origin}${target.target}`, { headers: { 'X-API-Key': target.keys[0]! } });
  let response = await ask();
  for (let tries = 1; tries < 5 && response.status !== 429; tries++) {
    await response.arrayBuffer();
    response = await ask();
  }
  const text = await response.text();
  let code: string | null = null;
  try {
    code = (JSON.parse(text) as { code?: string }).code ?? null;
  } catch {
    // nginx answers its own HTML page
  }
  return {
    status: response.status,
    code,
    rateLimitHeader: response.headers.has('ratelimit'),
    retryAfter: response.headers.get('retry-after'),
  };
}

/** The target's refusal as it went on the wire, for a bare server to replay (startBareHttp). */
export async function sampleAnswer(target: WrkTarget): Promise<ReplayedAnswer> {
  for (let tries = 0; tries < 5; tries++) {
    const response = await fetch(`${target.origin}${target.target}`, { headers: { 'X-API-Key': target.keys[0]! } });
    const body = await response.text();
    const requestId = response.headers.get('x-request-id');
    if (response.status !== 429 || requestId === null) continue;
    const fields = [...response.headers].filter(([name]) => !NODE_OWN_FIELDS.has(name));
    return { status: response.status, fields, body, requestId };
  }
  throw new Error(`${target.origin}${target.target} answered no 429 with an X-Request-Id in 5 tries`);
}

/** Fields node:http writes itself, or that the replaying server computes. */
const NODE_OWN_FIELDS: ReadonlySet<string> = new Set([
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

function cpuPerAnswer(run: WrkResult | undefined): RefusalFigures['cpu'] {
  const microsByProcess: Record<string, number> = {};
  let serverMicros = 0;
  if (run?.cpu) {
    const answers = Math.max(1, run.requests);
    for (const [name, percent] of cpuByName(run.cpu)) {
      const micros = ((percent / 100) * run.cpu.seconds * 1e6) / answers;
      microsByProcess[name] = Math.round(micros);
      if (name !== 'wrk' && name !== 'bench (main)') serverMicros += micros;
    }
  }
  return { microsByProcess, serverMicros: Math.round(serverMicros) };
}
