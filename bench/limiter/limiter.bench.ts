import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '@gateway/testing';
import { startGubernator, type GubernatorBaseline } from '../baselines/gubernator.baseline';
import { CpuMeter, type CpuUsage } from '../lib/cpu-meter';
import { runCommand } from '../lib/process';
import { bestOf, ratio } from '../lib/stats';
import type { ToolLookup } from '../lib/tools';
import type { BenchEnvironment } from '../setup/bench-environment';
import type { LimiterClientConfig, LimiterClientResult } from './limiter.client';

/** Issue 17: at least 1.2x Gubernator's decisions per second, at a p99 no worse than Gubernator's. */
export const LIMITER_TARGET_RATIO = 1.2;

export interface LimiterSettings {
  concurrencies: number[];
  keys: number;
  /** Warm-up of each run: at least warmupMs, then until the rate stops climbing, at most warmupMaxMs. */
  warmupMs: number;
  warmupMaxMs: number;
  durationMs: number;
  runs: number;
}

export interface LimiterTargetFigures {
  decisionsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  admittedShare: number;
  runs: LimiterClientResult[];
}

export interface LimiterRow {
  concurrency: number;
  /** The gateway's real verdict ('forward'): the figures the target is judged on. */
  actor: LimiterTargetFigures;
  /** Key, address and rate only ('free'): what Gubernator decides too. */
  actorRateOnly: LimiterTargetFigures;
  gubernator: LimiterTargetFigures | null;
  /** actor / gubernator decisions per second, for the forward and the rate-only verdict. */
  throughputRatio: number | null;
  throughputRatioRateOnly: number | null;
  /** actor p99 / gubernator p99 (<= 1 means no worse). */
  p99Ratio: number | null;
  p99RatioRateOnly: number | null;
  targetMet: boolean | null;
}

export interface LimiterSection {
  settings: LimiterSettings;
  gubernator: { version: string } | { unavailable: string };
  rows: LimiterRow[];
}

async function runClient(
  workDir: string,
  config: LimiterClientConfig,
  log: (message: string) => void,
): Promise<LimiterClientResult> {
  const path = join(workDir, `limiter-${config.target}-${config.concurrency}-${Date.now()}.json`);
  await writeFile(path, JSON.stringify(config));
  const timeoutMs = config.warmupMaxMs + config.durationMs + 120_000;
  let meter: CpuMeter | undefined;
  let cpu: CpuUsage | undefined;
  const result = await runCommand(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', join(repoRoot(), 'bench', 'limiter', 'limiter.client.ts'), path],
    {
      cwd: repoRoot(),
      timeoutMs,
      onLine: (line) => {
        if (line.startsWith('LIMITER_WARMUP '))
          log(`limiter: ${config.target} ${config.intent} C=${config.concurrency} warm-up ${line.slice(15)}`);
        if (line === 'LIMITER_WINDOW start') meter = new CpuMeter();
        if (line === 'LIMITER_WINDOW end') cpu = meter?.stop();
      },
    },
  );
  if (!cpu) meter?.stop();
  const line = result.stdout.split('\n').find((candidate) => candidate.startsWith('LIMITER_JSON '));
  if (!line) throw new Error(`limiter client (${config.target}) failed: ${result.stderr.slice(-2000)}`);
  return { ...(JSON.parse(line.slice('LIMITER_JSON '.length)) as LimiterClientResult), ...(cpu ? { cpu } : {}) };
}

function figures(runs: LimiterClientResult[]): LimiterTargetFigures {
  return {
    decisionsPerSecond: bestOf(runs, (run) => run.decisionsPerSecond, 'max'),
    p50Ms: bestOf(runs, (run) => run.latencyMs.p50, 'min'),
    p99Ms: bestOf(runs, (run) => run.latencyMs.p99, 'min'),
    admittedShare: bestOf(runs, (run) => run.admitted / Math.max(1, run.decisions), 'max'),
    runs,
  };
}

/**
 * Section 1: decisions per second and decision latency, client -> actor over NATS, against one Gubernator
 * instance with the same keys, concurrency and client process shape, runs interleaved (actor forward, actor
 * rate-only, gubernator, then again) so drift on the shared cores hits all alike.
 */
export async function runLimiterBench(
  env: BenchEnvironment,
  gubernatorTool: ToolLookup,
  settings: LimiterSettings,
  workDir: string,
  log: (message: string) => void,
): Promise<LimiterSection> {
  const keys = env.loadKeys.slice(0, settings.keys);
  const plan = env.plans.load;
  let gubernator: GubernatorBaseline | null = null;
  let gubernatorState: LimiterSection['gubernator'];
  if (gubernatorTool.ok) {
    try {
      gubernator = await startGubernator(gubernatorTool.path, { keys: keys.length });
      gubernatorState = { version: gubernatorTool.version };
    } catch (error) {
      gubernatorState = { unavailable: `gubernator would not start: ${(error as Error).message}` };
    }
  } else {
    gubernatorState = { unavailable: gubernatorTool.reason };
  }
  if ('unavailable' in gubernatorState) log(`limiter: Gubernator baseline not run: ${gubernatorState.unavailable}`);

  const rows: LimiterRow[] = [];
  try {
    for (const concurrency of settings.concurrencies) {
      const actorRuns: LimiterClientResult[] = [];
      const rateOnlyRuns: LimiterClientResult[] = [];
      const gubernatorRuns: LimiterClientResult[] = [];
      // A run without a decision in its window has no percentiles (NaN, which its JSON line carries as null).
      const fixed = (value: number | null, digits: number) =>
        value === null || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
      const report = (label: string, run: number, result: LimiterClientResult) =>
        log(
          `limiter: ${label.padEnd(18)} C=${concurrency} run ${run}: ${Math.round(result.decisionsPerSecond)} ` +
            `decisions/s, p50 ${fixed(result.latencyMs.p50, 2)} ms, p99 ${fixed(result.latencyMs.p99, 2)} ms, ` +
            `${fixed(result.meanBatch, 1)} per batch` +
            (result.decisions === 0
              ? ` (no decision completed in the window; rejected: ${JSON.stringify(result.rejected)})`
              : ''),
        );
      for (let run = 1; run <= settings.runs; run++) {
        const common = {
          concurrency,
          warmupMs: settings.warmupMs,
          warmupMaxMs: settings.warmupMaxMs,
          durationMs: settings.durationMs,
        };
        for (const intent of ['forward', 'free'] as const) {
          const config: LimiterClientConfig = {
            ...common,
            target: 'actor',
            intent,
            keys: keys.map((key) => key.hash),
            actor: {
              natsUrl: env.nats.url,
              partitions: Number(env.cluster.sharedEnv.PARTITIONS),
              subjectPrefix: env.cluster.sharedEnv.SUBJECT_PREFIX!,
            },
          };
          const actor =
            run === 1
              ? await env.profile(`limiter, actor ${intent}, C=${concurrency}`, env.liveActors(), () =>
                  runClient(workDir, config, log),
                )
              : await runClient(workDir, config, log);
          (intent === 'forward' ? actorRuns : rateOnlyRuns).push(actor);
          report(intent === 'forward' ? 'actor (forward)' : 'actor (rate only)', run, actor);
          if (actor.decisions === 0) {
            // Nothing was decided: what the actors said is the only clue the report can carry.
            for (const service of env.liveActors()) {
              log(`limiter: last output of ${service.name}:\n  ${service.output().slice(-10).join('\n  ')}`);
            }
          }
        }
        if (gubernator) {
          const result = await runClient(
            workDir,
            {
              ...common,
              target: 'gubernator',
              intent: 'free',
              keys: keys.map((key) => key.keyId),
              gubernator: { address: gubernator.grpcAddress, rps: plan.rps, burst: plan.burst },
            },
            log,
          );
          gubernatorRuns.push(result);
          report('gubernator', run, result);
        }
      }
      const actor = figures(actorRuns);
      const actorRateOnly = figures(rateOnlyRuns);
      const baseline = gubernatorRuns.length > 0 ? figures(gubernatorRuns) : null;
      const throughputRatio = baseline ? ratio(actor.decisionsPerSecond, baseline.decisionsPerSecond) : null;
      rows.push({
        concurrency,
        actor,
        actorRateOnly,
        gubernator: baseline,
        throughputRatio,
        throughputRatioRateOnly: baseline ? ratio(actorRateOnly.decisionsPerSecond, baseline.decisionsPerSecond) : null,
        p99Ratio: baseline ? ratio(actor.p99Ms, baseline.p99Ms) : null,
        p99RatioRateOnly: baseline ? ratio(actorRateOnly.p99Ms, baseline.p99Ms) : null,
        targetMet: baseline ? throughputRatio! >= LIMITER_TARGET_RATIO && actor.p99Ms <= baseline.p99Ms : null,
      });
    }
  } finally {
    await gubernator?.stop();
  }
  return { settings: { ...settings, keys: keys.length }, gubernator: gubernatorState, rows };
}
