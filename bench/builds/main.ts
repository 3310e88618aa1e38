/**
 * `npm run bench:builds -- --builds <ref>,<ref>[,...] [--service edge-auth|provider-proxy|quota-actor] [--rounds N]`
 *
 * Compares builds of one service by the CPU it spends per forwarded answer (docs/benchmarks.md, "Comparing builds").
 * Each git ref is checked out in a worktree and built; `.` is this working tree, uncommitted changes included. One
 * bench environment serves them all, with a fresh process of the service per build, all started together, and
 * saturation runs that alternate between the builds round after round. Writes reports/builds-<time>.{md,json}.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, type RunningService } from '@gateway/testing';
import { CpuMeter, type CpuUsage } from '../lib/cpu-meter';
import { describeMachine } from '../lib/machine';
import { settle } from '../lib/settle';
import { reportStamp, runMain, writeReportFiles } from '../lib/report-files';
import { ensureDebianTool } from '../lib/tools';
import { countedAnswers, refusalKeys, REFUSAL_KEYS, REFUSAL_KEYS_TEXT } from '../gateway/refusal.bench';
import { runWrk } from '../load/wrk.runner';
import { BenchEnvironment } from '../setup/bench-environment';
import { traceAsTheChart, tracedServiceEnv, type ChartTracedRun } from '../lib/chart-tracing';
import { buildIn, prepareCheckout, type Checkout } from './checkouts';
import { heapFigures, scrapeMetricsOrNone } from './heap';
import { parseBuildsArgs, USAGE, type ComparedService } from './args';
import { renderBuildsMarkdown, type BuildsReport } from './report';
import { microsPerAnswer, roundOrder, summarizeBuilds, type BuildRun } from './rounds';

/** The compared process of one build, and the origin whose load goes through it. */
interface Contender {
  checkout: Checkout;
  measured: RunningService;
  origin: string;
  started: RunningService[];
}

/**
 * provider-proxy is compared through an edge of this checkout's build each, pointed at that build's proxy, so that
 * only the proxy differs between two paths. A quota-actor gets partitions of its own: its build's subjects and lease
 * buckets, asked by an edge of this checkout's build on the same subjects, so each build's actor owns every partition
 * of its own path (the keys are shared; the bench's plan is metered, so no owner fences another's counts).
 */
async function startContender(
  env: BenchEnvironment,
  service: ComparedService,
  checkout: Checkout,
  index: number,
  traced: ((service: ComparedService, root: string) => Record<string, string>) | undefined,
): Promise<Contender> {
  const from = { root: checkout.root };
  // Traced, the build's process preloads its own build's telemetry; the path's other processes are this checkout's.
  const tracing = traced?.(service, checkout.root) ?? {};
  if (service === 'edge-auth') {
    const edge = await env.cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream', ...tracing }, from);
    return { checkout, measured: edge, origin: edge.url, started: [edge] };
  }
  if (service === 'quota-actor') {
    const shared = env.cluster.sharedEnv;
    const own = {
      SUBJECT_PREFIX: `${shared.SUBJECT_PREFIX}b${index}`,
      LEASE_BUCKET: `${shared.LEASE_BUCKET}_b${index}`,
      // Read by builds from before node leases only, which kept their live members in a bucket of its own.
      MEMBERS_BUCKET: `${shared.LEASE_BUCKET}_members_b${index}`,
    };
    const actor = await env.cluster.startActor({ ...own, NODE_ID: `builds-actor-${index}`, ...tracing }, from);
    const edge = await env.cluster.startEdge({ PROVIDER_PROXY_TRANSPORT: 'stream', ...own });
    return { checkout, measured: actor, origin: edge.url, started: [actor, edge] };
  }
  const proxy = await env.cluster.startProxy(tracing, from);
  const edge = await env.cluster.startEdge({
    PROVIDER_PROXY_TRANSPORT: 'stream',
    PROVIDER_PROXY_ADDRESS: new URL(proxy.urls.grpc!).host,
  });
  return { checkout, measured: proxy, origin: edge.url, started: [proxy, edge] };
}

/**
 * Every process of the path by name, without the load generator and this one. The loaded build's own processes are
 * "<service> (loaded build)"; the other builds' processes, idle during the run, count together.
 */
function pathCost(
  usage: CpuUsage,
  loaded: Contender,
  contenders: Contender[],
  answers: number,
): Record<string, number> {
  const names = new Map<number, string>();
  for (const contender of contenders) {
    for (const service of contender.started) {
      names.set(
        service.process.pid!,
        contender === loaded ? `${service.name} (loaded build)` : 'the other builds (idle)',
      );
    }
  }
  const byName: Record<string, number> = {};
  for (const item of usage.processes) {
    if (item.name === 'wrk' || item.name === 'bench (main)') continue;
    const name = names.get(item.pid) ?? item.name;
    byName[name] = (byName[name] ?? 0) + microsPerAnswer(item.cpuPercent, usage.seconds, answers);
  }
  return byName;
}

async function main(): Promise<void> {
  const args = parseBuildsArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(USAGE);
    return;
  }
  const startedAt = new Date();
  const t0 = Date.now();
  const log = (message: string) => console.log(`[builds +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  const machine = describeMachine();
  const wrk = await ensureDebianTool('wrk', ['wrk'], ['--version'], log);
  if (!wrk.ok) throw new Error(`wrk is needed: ${wrk.reason}`);

  const workDir = await mkdtemp(join(tmpdir(), 'gateway-builds-'));
  const checkouts: Checkout[] = [];
  let env: BenchEnvironment | undefined;
  let traced: ChartTracedRun | undefined;
  let stopping = false;
  const cleanUp = async () => {
    await env?.stop().catch(() => undefined);
    await traced?.close();
    for (const checkout of checkouts) await checkout.remove();
    await rm(workDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping everything this comparison started`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const summaries = await (async () => {
    try {
      log('build: npm run build (this checkout: the environment, and the working tree if it is compared)');
      await buildIn(repoRoot());
      for (const ref of args.builds) checkouts.push(await prepareCheckout(ref, workDir, log));

      const run = args.telemetry ? await traceAsTheChart(repoRoot(), log) : undefined;
      traced = run;
      const tracedEnv = run
        ? (service: ComparedService, root: string) => tracedServiceEnv(service, run.endpoint, run.tracing, root)
        : undefined;
      env = await BenchEnvironment.start({ loadKeys: args.keys, monthlyQuota: 5_000, compiled: true, log });
      log(`builds: starting ${args.service} of ${checkouts.map((checkout) => checkout.label).join(', ')}`);
      const contenders: Contender[] = [];
      for (const [index, checkout] of checkouts.entries()) {
        contenders.push(await startContender(env, args.service, checkout, index, tracedEnv));
      }

      const { path, query } = env.platformPathAndQuery();
      const target = `/v1/video-ads${path}?${query}`;
      const keys = args.refusal ? await refusalKeys(env) : env.loadKeys.slice(0, args.keys).map((key) => key.secret);
      const counted = countedAnswers(args.refusal);
      const runs = contenders.map(() => [] as BuildRun[]);
      for (let round = -args.warmupRounds; round < args.rounds; round++) {
        const order = roundOrder(contenders.length, round + args.warmupRounds);
        for (const [position, index] of order.entries()) {
          const contender = contenders[index]!;
          await settle(5_000);
          const metricsUrl = contender.measured.urls.http!;
          const heapBefore = await scrapeMetricsOrNone(metricsUrl);
          const meter = new CpuMeter();
          const result = await runWrk(
            wrk.path,
            workDir,
            { origin: contender.origin, target, keys },
            {
              seconds: args.seconds,
              connections: args.connections,
              threads: 1,
            },
          );
          const usage = meter.stop();
          const heap = heapFigures(heapBefore, await scrapeMetricsOrNone(metricsUrl));
          const answers = counted.of(result);
          const measured = usage.processes.find((item) => item.pid === contender.measured.process.pid);
          const cost = microsPerAnswer(measured?.cpuPercent ?? 0, usage.seconds, answers);
          const what = round < 0 ? `warm-up ${round + args.warmupRounds + 1}` : `round ${round + 1}`;
          log(
            `${what}: ${contender.checkout.label}: ${Math.round(answers / result.seconds)} ` +
              `${counted.unit}/s, ${cost} µs per answer` +
              (result.non2xx > 0 ? `, ${result.non2xx} non-2xx` : ''),
          );
          if (round < 0) continue;
          runs[index]!.push({
            round,
            position,
            seconds: result.seconds,
            answersPerSecond: Math.round(answers / result.seconds),
            non2xx: result.non2xx,
            socketErrors: result.socketErrors,
            microsPerAnswer: cost,
            pathMicrosPerAnswer: pathCost(usage, contender, contenders, answers),
            heap,
          });
        }
      }
      return summarizeBuilds(
        contenders.map((contender, index) => ({ label: contender.checkout.label, runs: runs[index]! })),
      );
    } finally {
      log('stopping the cluster, the infrastructure and the worktrees');
      await cleanUp();
    }
  })();

  const report: BuildsReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine,
    service: args.service,
    load: args.refusal ? 'refusal' : 'forward',
    method:
      `one bench environment (NATS, FerretDB, sandbox, provider-proxy, one quota-actor, ` +
      (args.refusal ? `the refusal bench's ${REFUSAL_KEYS} ${REFUSAL_KEYS_TEXT}` : `${args.keys} business-plan keys`) +
      `), a fresh compiled ${args.service} per build started together` +
      (args.service === 'provider-proxy' ? ' (each behind an edge-auth of this checkout)' : '') +
      (args.service === 'quota-actor'
        ? ' (each with subjects and lease buckets of its own, asked by an edge-auth of this checkout)'
        : '') +
      `; wrk 1 thread, ${args.connections} connections, ${args.seconds} s per run; ${args.warmupRounds} rounds of ` +
      `warm-up, then ${args.rounds} measured rounds, each build once per round in an order that moves on one build ` +
      'per round, after the processes settle; CPU from /proc (utime + stime of the process over the run); its ' +
      'collector from its /metrics before and after each run (old space in use at the end, mark-compacts, pauses).' +
      (args.telemetry
        ? " Every process traced as the Helm chart runs them with an OTLP endpoint (the SDK preloaded, the chart's " +
          "sampler and protocol from charts/gateway/values.yaml), each build's process with its own build's preload, " +
          'spans exported to a receiver in the bench process that keeps nothing.'
        : ''),
    target: args.refusal
      ? "GET /v1/video-ads/v1.3/advertiser/info/ over the refusal keys (the refusal bench's load: nearly every " +
        'answer a 429 the edge repeats while the quota-actor says it holds)'
      : `GET /v1/video-ads/v1.3/advertiser/info/ over ${args.keys} keys (the gateway benchmark's forward path)`,
    builds: summaries,
    notes: ['Builds are comparable within this report only: the same machine a few minutes later can differ by 2-3x.'],
  };
  await writeReportFiles('builds', reportStamp(report.startedAt), renderBuildsMarkdown(report), report, log);
}

runMain(main);
