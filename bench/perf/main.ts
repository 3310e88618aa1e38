/**
 * `npm run bench:perf -- [--seconds 8] [--keys 256] [--connections 64] [--warmup-runs 3] [--top 25]`
 *
 * Where edge-auth, provider-proxy and the quota-actor spend their CPU on the gateway benchmark's forward path, as
 * `perf` sees it on the CPU rather than V8's sampling profiler (docs/benchmarks.md, "Reading the profiles"). The
 * services run compiled with `--perf-basic-prof-only-functions`, so JIT-compiled functions have names. Writes
 * reports/perf-<time>.{md,json}: per process, its CPU per answer split by category, and its top symbols.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, type RunningService } from '@gateway/testing';
import { buildIn } from '../builds/checkouts';
import { microsPerAnswer } from '../builds/rounds';
import { CpuMeter } from '../lib/cpu-meter';
import { describeMachine } from '../lib/machine';
import { runCommand } from '../lib/process';
import { settle } from '../lib/settle';
import { reportStamp, runMain, writeReportFiles } from '../lib/report-files';
import { ensureDebianTool } from '../lib/tools';
import { runWrk } from '../load/wrk.runner';
import { BenchEnvironment } from '../setup/bench-environment';
import { parsePerfArgs, PERF_USAGE } from './perf-args';
import { renderPerfMarkdown, type PerfReport, type ProfiledProcess } from './perf-report';
import { categoryShares, parsePerfReport } from './perf-symbols';

const NAMED_JIT = '--perf-basic-prof-only-functions';
/** Load before and after the recording, so perf sees the middle of a steady run. */
const MARGIN_SECONDS = 2;

/** Adds the flag that names JIT-compiled functions to the variables the bench environment gives one kind of process. */
function withNamedJit(variable: 'BENCH_EDGE_ENV' | 'BENCH_PROXY_ENV' | 'BENCH_ACTOR_ENV'): void {
  const extra = JSON.parse(process.env[variable] || '{}') as Record<string, string>;
  extra.NODE_OPTIONS = [extra.NODE_OPTIONS, NAMED_JIT].filter(Boolean).join(' ');
  process.env[variable] = JSON.stringify(extra);
}

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
  for (const variable of ['BENCH_EDGE_ENV', 'BENCH_PROXY_ENV', 'BENCH_ACTOR_ENV'] as const) withNamedJit(variable);
  const workDir = await mkdtemp(join(tmpdir(), 'gateway-perf-'));
  const env = await BenchEnvironment.start({ loadKeys: args.keys, monthlyQuota: 5_000, compiled: true, log });
  let report: PerfReport;
  try {
    const { path, query } = env.platformPathAndQuery();
    const target = {
      origin: env.edges.stream.url,
      target: `/v1/video-ads${path}?${query}`,
      keys: env.loadKeys.slice(0, args.keys).map((key) => key.secret),
    };
    const load = (seconds: number) =>
      runWrk(wrk.path, workDir, target, { seconds, connections: args.connections, threads: 1 });
    for (let run = 1; run <= args.warmupRuns; run++) {
      const warm = await load(6);
      log(`warm-up ${run}: ${Math.round(warm.okPerSecond)} 2xx/s`);
    }
    await settle(5_000);

    const profiled: { service: string; process: RunningService }[] = [
      { service: 'edge-auth (stream)', process: env.edges.stream },
      { service: 'provider-proxy', process: env.cluster.proxy },
      ...env.liveActors().map((actor) => ({ service: 'quota-actor', process: actor })),
    ];
    const meter = new CpuMeter();
    const running = load(args.seconds + 2 * MARGIN_SECONDS);
    await new Promise((resolve) => setTimeout(resolve, MARGIN_SECONDS * 1000));
    log(`recording ${profiled.map(({ service }) => service).join(', ')} for ${args.seconds} s`);
    const recorded = await Promise.all(
      profiled.map(({ process: service }) =>
        runCommand(
          perf.path,
          [
            'record',
            '-F',
            '2000',
            '-g',
            '-o',
            join(workDir, `${service.process.pid}.data`),
            '-p',
            String(service.process.pid),
            '--',
            'sleep',
            String(args.seconds),
          ],
          { timeoutMs: (args.seconds + 30) * 1000 },
        ),
      ),
    );
    const failed = recorded.find((outcome) => outcome.code !== 0);
    if (failed) throw new Error(`perf record failed: ${failed.stderr.trim().split('\n').slice(-3).join(' ')}`);
    const result = await running;
    const usage = meter.stop();
    const answers = result.requests - result.non2xx;
    log(`measured run: ${Math.round(result.okPerSecond)} 2xx/s`);

    const processes: ProfiledProcess[] = [];
    for (const { service, process: running } of profiled) {
      const pid = running.process.pid!;
      const text = await runCommand(
        perf.path,
        ['report', '-i', join(workDir, `${pid}.data`), '--no-children', '--sort', 'symbol', '-g', 'none', '--stdio'],
        { timeoutMs: 120_000 },
      );
      const shares = parsePerfReport(text.stdout);
      const cpu = usage.processes.find((item) => item.pid === pid)?.cpuPercent ?? Number.NaN;
      processes.push({
        service,
        pid,
        microsPerAnswer: microsPerAnswer(cpu, usage.seconds, answers),
        categories: categoryShares(shares),
        top: shares.slice(0, args.top),
      });
    }
    report = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine,
      method:
        `one bench environment (NATS, FerretDB, sandbox, provider-proxy, one quota-actor, edge-auth with the stream ` +
        `transport, ${args.keys} business-plan keys), every service compiled and started with ${NAMED_JIT}; ` +
        `${args.warmupRuns} load runs of 6 s to warm up, then wrk (1 thread, ${args.connections} connections) for ` +
        `${args.seconds + 2 * MARGIN_SECONDS} s on GET /v1/video-ads/v1.3/advertiser/info/, and \`perf record -F 2000 -g\` ` +
        `of each process (all its threads) for the ${args.seconds} s in the middle; self time per symbol from ` +
        '`perf report --no-children --sort symbol`; CPU per answer from /proc over the whole run. The flag makes a ' +
        "process's collector slower (it logs every object moved), so read the collector's share as an upper bound.",
      okPerSecond: result.okPerSecond,
      processes,
    };
  } finally {
    log('stopping the cluster and the infrastructure');
    await env.stop();
    await rm(workDir, { recursive: true, force: true });
  }

  await writeReportFiles('perf', reportStamp(report.startedAt), renderPerfMarkdown(report), report, log);
}

runMain(main);
