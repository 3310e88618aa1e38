/**
 * `npm run bench:perf -- [--seconds 8] [--keys 256] [--connections 64] [--warmup-runs 3] [--top 25]
 *   [--skeleton | --refusal] [--keep-data] [--telemetry]`
 *
 * Where edge-auth, provider-proxy and the quota-actor spend their CPU on the gateway benchmark's forward path, as
 * `perf` sees it on the CPU rather than V8's sampling profiler (docs/benchmarks.md, "Reading the profiles"). The
 * services run compiled with `--perf-basic-prof-only-functions`, so JIT-compiled functions have names. Writes
 * reports/perf-<time>.{md,json}: per process, its CPU per answer split by category, and its top symbols. With
 * `--skeleton`, the design's skeleton runs under the same load after them, and each gateway process is set against the
 * skeleton process that does its job: what the gateway's own work costs, symbol by symbol. With `--refusal`, the load
 * is the refusal bench's instead (keys far over their rate), and edge-auth is set against a bare node:http server
 * writing edge-auth's own refusal under the same load.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@gateway/testing';
import { startBareHttp } from '../baselines/bare-http.baseline';
import { startSkeleton, type SkeletonBaseline } from '../baselines/skeleton.baseline';
import { buildIn } from '../builds/checkouts';
import { microsPerAnswer } from '../builds/rounds';
import { CpuMeter } from '../lib/cpu-meter';
import { describeMachine } from '../lib/machine';
import { runCommand } from '../lib/process';
import { settle } from '../lib/settle';
import { reportStamp, runMain, writeReportFiles } from '../lib/report-files';
import { ensureDebianTool } from '../lib/tools';
import { countedAnswers, refusalKeys, REFUSAL_KEYS_TEXT, sampleAnswer } from '../gateway/refusal.bench';
import { runWrk, type WrkResult } from '../load/wrk.runner';
import { BenchEnvironment } from '../setup/bench-environment';
import { addServiceEnv, SERVICE_VARIABLES, traceAsTheChart } from '../lib/chart-tracing';
import { jitMapLength, keepNewestJitNames } from './jit-map';
import { parsePerfArgs, PERF_USAGE, type PerfArgs } from './perf-args';
import { compareWithSkeleton, type ProcessProfile } from './perf-compare';
import { renderPerfMarkdown, type PerfReport, type ProfiledProcess, type TwinRun } from './perf-report';
import { categoryShares, parsePerfReport } from './perf-symbols';

const NAMED_JIT = '--perf-basic-prof-only-functions';
/** Load before and after the recording, so perf sees the middle of a steady run. */
const MARGIN_SECONDS = 2;

interface Subject {
  service: string;
  pid: number;
}

/** What every recording of one bench:perf run shares. */
interface Recording {
  perfPath: string;
  /** perf.data files, until the report is written. */
  workDir: string;
  args: PerfArgs;
  log: (message: string) => void;
  /** With --keep-data: where each perf.data is copied to. */
  keptDataDir: string | undefined;
  /** The answers a load run counts: 2xx on the forward load, every answer on the refusal load. */
  answers: { of(result: WrkResult): number; unit: string };
}

interface RecordedRun {
  answersPerSecond: number;
  processes: ProfiledProcess[];
  /** Every symbol of each process, for the comparison with the skeleton. */
  profiles: ProcessProfile[];
}

/**
 * Warms a target up, then records each subject with perf for the middle `seconds` of one more load run: its symbols'
 * self time from perf, its CPU per answer from /proc over the whole run.
 */
async function recordUnderLoad(
  { perfPath, workDir, args, log, keptDataDir, answers: counted }: Recording,
  subjects: Subject[],
  load: (seconds: number) => Promise<WrkResult>,
): Promise<RecordedRun> {
  for (let run = 1; run <= args.warmupRuns; run++) {
    const warm = await load(6);
    log(`warm-up ${run}: ${Math.round(counted.of(warm) / warm.seconds)} ${counted.unit}/s`);
  }
  await settle(5_000);
  const meter = new CpuMeter();
  const running = load(args.seconds + 2 * MARGIN_SECONDS);
  await new Promise((resolve) => setTimeout(resolve, MARGIN_SECONDS * 1000));
  log(`recording ${subjects.map(({ service }) => service).join(', ')} for ${args.seconds} s`);
  const dataFile = (pid: number) => join(workDir, `${pid}.data`);
  const recorded = await Promise.all(
    subjects.map(({ pid }) =>
      runCommand(
        perfPath,
        ['record', '-F', '2000', '-g', '-o', dataFile(pid), '-p', String(pid), '--', 'sleep', String(args.seconds)],
        { timeoutMs: (args.seconds + 30) * 1000 },
      ),
    ),
  );
  const failed = recorded.find((outcome) => outcome.code !== 0);
  if (failed) throw new Error(`perf record failed: ${failed.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const jitMapLengths = await Promise.all(subjects.map(({ pid }) => jitMapLength(pid)));
  const result = await running;
  const usage = meter.stop();
  await Promise.all(subjects.map(({ pid }, index) => keepNewestJitNames(pid, jitMapLengths[index]!)));
  const answers = counted.of(result);
  log(`measured run: ${Math.round(answers / result.seconds)} ${counted.unit}/s`);

  if (keptDataDir !== undefined) {
    await mkdir(keptDataDir, { recursive: true });
    for (const { service, pid } of subjects) {
      await copyFile(dataFile(pid), join(keptDataDir, `${service.replace(/\W+/g, '-')}-${pid}.data`));
    }
    log(
      `perf data kept in ${keptDataDir} (JIT names in /tmp/perf-<pid>.map, the newest at each address as the recording ended, as long as those stay)`,
    );
  }
  const run: RecordedRun = { answersPerSecond: answers / result.seconds, processes: [], profiles: [] };
  for (const { service, pid } of subjects) {
    const text = await runCommand(
      perfPath,
      ['report', '-i', dataFile(pid), '--no-children', '--sort', 'symbol', '-g', 'none', '--stdio'],
      { timeoutMs: 120_000 },
    );
    const shares = parsePerfReport(text.stdout);
    const cpu = usage.processes.find((item) => item.pid === pid)?.cpuPercent ?? Number.NaN;
    const perAnswer = microsPerAnswer(cpu, usage.seconds, answers);
    run.processes.push({
      service,
      pid,
      microsPerAnswer: perAnswer,
      categories: categoryShares(shares),
      top: shares.slice(0, args.top),
    });
    run.profiles.push({ service, microsPerAnswer: perAnswer, shares });
  }
  return run;
}

/** The skeleton's process that does each gateway process's job, with none of its logic. */
const SKELETON_TWINS = [
  { gateway: 'edge-auth (stream)', skeleton: 'skeleton edge', pid: (pids: SkeletonBaseline['pids']) => pids.edge },
  { gateway: 'provider-proxy', skeleton: 'skeleton proxy', pid: (pids: SkeletonBaseline['pids']) => pids.proxy },
  { gateway: 'quota-actor', skeleton: 'skeleton decider', pid: (pids: SkeletonBaseline['pids']) => pids.decider },
];

async function main(): Promise<void> {
  const args = parsePerfArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(PERF_USAGE);
    return;
  }
  const startedAt = new Date();
  const t0 = Date.now();
  const log = (message: string) => console.log(`[perf +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  const machine = describeMachine();
  const wrk = await ensureDebianTool('wrk', ['wrk'], ['--version'], log);
  if (!wrk.ok) throw new Error(`wrk is needed: ${wrk.reason}`);
  const perf = await ensureDebianTool('perf', ['linux-perf'], ['--version'], log);
  if (!perf.ok) throw new Error(`perf is needed: ${perf.reason}`);

  log('build: npm run build (the services run compiled, as their images run them)');
  await buildIn(repoRoot());
  for (const [variable] of SERVICE_VARIABLES) addServiceEnv(variable, { NODE_OPTIONS: NAMED_JIT });
  const traced = args.telemetry ? await traceAsTheChart(repoRoot(), log) : undefined;
  const tracing = traced?.tracing;
  const workDir = await mkdtemp(join(tmpdir(), 'gateway-perf-'));
  const keptDataDir = args.keepData
    ? join(repoRoot(), 'reports', `perf-${reportStamp(startedAt.toISOString())}-data`)
    : undefined;
  const env = await BenchEnvironment.start({ loadKeys: args.keys, monthlyQuota: 5_000, compiled: true, log });
  let report: PerfReport;
  try {
    const { path, query } = env.platformPathAndQuery();
    const target = `/v1/video-ads${path}?${query}`;
    const keys = args.refusal ? await refusalKeys(env) : env.loadKeys.slice(0, args.keys).map((key) => key.secret);
    const loadOn =
      (origin: string, requestTarget = target) =>
      (seconds: number) =>
        runWrk(
          wrk.path,
          workDir,
          { origin, target: requestTarget, keys },
          { seconds, connections: args.connections, threads: 1 },
        );
    const recording: Recording = {
      perfPath: perf.path,
      workDir,
      args,
      log,
      keptDataDir,
      answers: countedAnswers(args.refusal),
    };
    const measured = args.refusal
      ? await recordRefusal(recording, env, { target, keys }, loadOn)
      : await recordForward(recording, env, loadOn);
    report = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine,
      load: args.refusal ? 'refusal' : 'forward',
      method:
        (args.refusal
          ? `one bench environment (NATS, FerretDB, sandbox, provider-proxy, one quota-actor, edge-auth with the ` +
            `stream transport, ${keys.length} ${REFUSAL_KEYS_TEXT}, as the refusal bench's), every service compiled ` +
            `and started with ${NAMED_JIT}; `
          : `one bench environment (NATS, FerretDB, sandbox, provider-proxy, one quota-actor, edge-auth with the ` +
            `stream transport, ${args.keys} business-plan keys), every service compiled and started with ` +
            `${NAMED_JIT}; `) +
        `${args.warmupRuns} load runs of 6 s to warm up, then wrk (1 thread, ${args.connections} connections) for ` +
        `${args.seconds + 2 * MARGIN_SECONDS} s on GET /v1/video-ads/v1.3/advertiser/info/, and \`perf record -F 2000 -g\` ` +
        `of each process (all its threads) for the ${args.seconds} s in the middle; self time per symbol from ` +
        '`perf report --no-children --sort symbol`; CPU per answer from /proc over the whole run. The flag makes a ' +
        "process's collector slower (it logs every object moved), so read the collector's share as an upper bound." +
        (args.skeleton
          ? " Then the design's skeleton (bench/baselines/skeleton.baseline.ts), its processes started with the same " +
            'flag, under the same load, warm-up and recording; each gateway process is set against its twin symbol by ' +
            'symbol, in µs per answer.'
          : '') +
        (args.refusal
          ? " Then a bare node:http server (bench/baselines/bare-http.server.cjs) writing edge-auth's own refusal, " +
            'sampled from edge-auth (its status, fields and problem body, a fresh request id in each, the answers of ' +
            'a turn ended together as edge-auth does), started with the same flag, under the same load, warm-up and ' +
            'recording; edge-auth is set against it symbol by symbol, in µs per answer.'
          : '') +
        (tracing
          ? " The gateway's services ran traced as the Helm chart runs them once it has an OTLP endpoint: the " +
            `OpenTelemetry SDK preloaded, OTEL_TRACES_SAMPLER=${tracing.sampler} with ${tracing.samplerArg}, ` +
            `${tracing.protocol} to a receiver in the bench process that keeps nothing` +
            (args.skeleton || args.refusal
              ? `; the ${args.refusal ? 'bare server' : 'skeleton'} is never traced.`
              : '.')
          : ''),
      answersPerSecond: measured.gateway.answersPerSecond,
      processes: measured.gateway.processes,
      ...(measured.twin ? { twin: measured.twin } : {}),
      ...(traced ? { telemetry: traced.receipts() } : {}),
    };
  } finally {
    log('stopping the cluster and the infrastructure');
    await env.stop();
    await traced?.close();
    await rm(workDir, { recursive: true, force: true });
  }

  await writeReportFiles('perf', reportStamp(report.startedAt), renderPerfMarkdown(report), report, log);
}

type LoadOn = (origin: string, requestTarget?: string) => (seconds: number) => Promise<WrkResult>;

interface Measured {
  gateway: RecordedRun;
  twin?: TwinRun;
}

/** The forward load: edge-auth, provider-proxy and the quota-actor, then with --skeleton the skeleton's twins. */
async function recordForward(recording: Recording, env: BenchEnvironment, loadOn: LoadOn): Promise<Measured> {
  const gateway = await recordUnderLoad(
    recording,
    [
      { service: 'edge-auth (stream)', pid: env.edges.stream.process.pid! },
      { service: 'provider-proxy', pid: env.cluster.proxy.process.pid! },
      ...env.liveActors().map((actor) => ({ service: 'quota-actor', pid: actor.process.pid! })),
    ],
    loadOn(env.edges.stream.url),
  );
  if (!recording.args.skeleton) return { gateway };
  return { gateway, twin: await recordSkeleton(recording, env, gateway, loadOn) };
}

/**
 * The refusal load: edge-auth holding the quota-actor's refusals, then a bare node:http server writing edge-auth's own
 * refusal under the same load, and edge-auth set against it.
 */
async function recordRefusal(
  recording: Recording,
  env: BenchEnvironment,
  { target, keys }: { target: string; keys: string[] },
  loadOn: LoadOn,
): Promise<Measured> {
  const edge = { service: 'edge-auth (stream)', pid: env.edges.stream.process.pid! };
  const gateway = await recordUnderLoad(recording, [edge], loadOn(env.edges.stream.url));
  const answer = await sampleAnswer({ origin: env.edges.stream.url, target, keys });
  const bare = await startBareHttp(answer, { NODE_OPTIONS: NAMED_JIT });
  try {
    const bareRun = await recordUnderLoad(
      recording,
      [{ service: 'bare node:http, the edge refusal', pid: bare.pid }],
      loadOn(bare.origin, '/'),
    );
    const comparisons = [compareWithSkeleton(gateway.profiles[0]!, bareRun.profiles[0]!, recording.args.top)];
    return {
      gateway,
      twin: {
        title: "a bare node:http server writing edge-auth's own refusal",
        answersPerSecond: bareRun.answersPerSecond,
        processes: bareRun.processes,
        comparisons,
      },
    };
  } finally {
    await bare.stop();
  }
}

/** The skeleton's run under the gateway's load, and each gateway process set against its twin. */
async function recordSkeleton(
  recording: Recording,
  env: BenchEnvironment,
  gateway: RecordedRun,
  loadOn: LoadOn,
): Promise<TwinRun> {
  const skeleton = await startSkeleton({
    natsUrl: env.nats.url,
    upstream: new URL(env.cluster.sandbox.url),
    token: env.platform.token,
    env: { NODE_OPTIONS: NAMED_JIT },
  });
  try {
    const run = await recordUnderLoad(
      recording,
      SKELETON_TWINS.map((twin) => ({ service: twin.skeleton, pid: twin.pid(skeleton.pids) })),
      loadOn(skeleton.origin),
    );
    const profileOf = (profiles: ProcessProfile[], service: string) =>
      profiles.find((profile) => profile.service === service);
    const comparisons = SKELETON_TWINS.flatMap((twin) => {
      const ours = profileOf(gateway.profiles, twin.gateway);
      const theirs = profileOf(run.profiles, twin.skeleton);
      return ours && theirs ? [compareWithSkeleton(ours, theirs, recording.args.top)] : [];
    });
    return {
      title: "the design's skeleton",
      answersPerSecond: run.answersPerSecond,
      processes: run.processes,
      comparisons,
    };
  } finally {
    await skeleton.stop();
  }
}

runMain(main);
