import { mcpMarkdown, type McpBenchSection } from '../mcp/mcp.bench';
import type { AccuracySection, QuotaResult } from '../accuracy/accuracy.bench';
import {
  latencyTargetLevel,
  refusedAtSaturation,
  type GatewaySection,
  type GatewayTargetName,
} from '../gateway/gateway.bench';
import { ratioAgainst, TARGET_BOUNDS } from '../gateway/targets';
import { tracedRunLine, type ChartTracing } from '../lib/chart-tracing';
import { contextSwitchesByName, cpuByName, formatCpu, type CpuUsage } from '../lib/cpu-meter';
import type { CollectorFigures, StageFigures } from '../lib/edge-stages';
import type { MachineInfo } from '../lib/machine';
import type { OtlpReceipts } from '../lib/otlp-receiver';
import { LIMITER_TARGET_RATIO, type LimiterSection, type LimiterTargetFigures } from '../limiter/limiter.bench';
import type { ProfileSummary } from './cpu-profile';
import { warmUpText, type WarmUp } from '../load/warm-up';

/** The sections of `npm run bench`, in the order of the issue. */
export const BENCH_SECTIONS = ['limiter', 'gateway', 'accuracy', 'mcp'] as const;
export type BenchSection = (typeof BENCH_SECTIONS)[number];

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  totalSeconds: number;
  mode: 'full' | 'quick';
  sections: string[];
  profiled: boolean;
  profiles?: (ProfileSummary & { service: string; label: string })[];
  machine: MachineInfo;
  environment: Record<string, string>;
  /** Waits for the processes to go quiet before each section (left-over work of the previous one). */
  settling: { before: string; waitedMs: number; quiet: boolean; busy: string }[];
  limiter?: LimiterSection | { skipped: string };
  gateway?: GatewaySection | { skipped: string };
  accuracy?: AccuracySection | { skipped: string };
  mcp?: McpBenchSection;
  /** With --telemetry: the chart's tracing settings edge-auth, provider-proxy and the quota-actors ran with. */
  telemetry?: ChartTracing & OtlpReceipts;
  notes: string[];
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : 'n/a');
const pct = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(2)} %` : 'n/a');
const met = (value: boolean | null | undefined) =>
  value === null || value === undefined ? 'not evaluated' : value ? '**met**' : '**NOT met**';

function limiterMarkdown(section: LimiterSection): string[] {
  const { settings } = section;
  const lines = [
    '## 1. Limiter: decisions, client -> actor over NATS vs Gubernator',
    '',
    `Method: one Node client process per run (\`bench/limiter/limiter.client.ts\`), ${settings.keys} keys, C closed-loop ` +
      `workers each asking one decision for a random key and waiting for it; everything asked in one event-loop ` +
      `turn leaves together (DecisionClient: one NATS request per owning actor node once the owners are known; Gubernator: one gRPC GetRateLimits ` +
      `of up to 1000). Every key is asked once before timing, then a warm-up of 1 s windows until the rate stops ` +
      `climbing (at least ${settings.warmupMs / 1000} s, at most ${settings.warmupMaxMs / 1000} s: the rule of the ` +
      `gateway's targets, listed below), then ` +
      `${settings.durationMs / 1000} s measured; ${settings.runs} run(s) per target, interleaved; each figure is ` +
      `the better of the runs. The actor decides either the full \`forward\` verdict (key, address, rate, provider, ` +
      `path, account, and the month's usage of the metered business plan, 100 rps / burst 200, written to MongoDB ` +
      `every USAGE_FLUSH_MS, 5 s by default) or the rate-only \`free\` verdict (key, address, rate); Gubernator decides LEAKY_BUCKET with ` +
      `the same rate and burst (the same GCRA bucket), one instance, gRPC on loopback. One quota-actor process, ` +
      `PARTITIONS=16.`,
    '',
  ];
  if ('unavailable' in section.gubernator) {
    lines.push(`**Gubernator baseline not run**: ${section.gubernator.unavailable}`, '');
  } else {
    lines.push(`Gubernator: ${section.gubernator.version}`, '');
  }
  lines.push(
    '| C | target | decisions/s | p50 | p99 | admitted | decisions per batch | vs Gubernator: throughput | vs Gubernator: p99 | target |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const meanBatch = (figures: LimiterTargetFigures) => {
    const values = figures.runs.map((run) => run.meanBatch).filter(Number.isFinite);
    return values.length ? n(Math.max(...values), 1) : 'n/a';
  };
  const ratioCell = (value: number | null) => (value === null ? '-' : `${n(value, 2)}x`);
  for (const row of section.rows) {
    const variants: [string, LimiterTargetFigures | null, number | null, number | null, string][] = [
      ['actor, forward verdict', row.actor, row.throughputRatio, row.p99Ratio, met(row.targetMet)],
      [
        'actor, rate-only verdict',
        row.actorRateOnly,
        row.throughputRatioRateOnly,
        row.p99RatioRateOnly,
        '(diagnostic)',
      ],
      ['Gubernator', row.gubernator, null, null, ''],
    ];
    for (const [label, figures, throughput, p99, target] of variants) {
      if (!figures) {
        lines.push(`| ${row.concurrency} | ${label} | not run | | | | | | | |`);
        continue;
      }
      lines.push(
        `| ${row.concurrency} | ${label} | ${n(figures.decisionsPerSecond)} | ${ms(figures.p50Ms)} | ${ms(figures.p99Ms)} | ` +
          `${pct(figures.admittedShare)} | ${meanBatch(figures)} | ${ratioCell(throughput)} | ${ratioCell(p99)} | ${target} |`,
      );
    }
  }
  lines.push('', 'Warm-up of the first run, decisions/s per 1 s window:', '');
  for (const row of section.rows) {
    const warmed = (figures: LimiterTargetFigures | null) => warmUpText(figures?.runs[0]?.warmUp);
    lines.push(`- C=${row.concurrency}, actor forward: ${warmed(row.actor)}`);
    lines.push(`- C=${row.concurrency}, actor rate-only: ${warmed(row.actorRateOnly)}`);
    if (row.gubernator) lines.push(`- C=${row.concurrency}, Gubernator: ${warmed(row.gubernator)}`);
  }
  lines.push(
    '',
    'Where the CPU went during the measured window of the first run (% of one core; 200 % = the machine):',
    '',
  );
  for (const row of section.rows) {
    lines.push(`- C=${row.concurrency}, actor forward: ${formatCpu(row.actor.runs[0]?.cpu)}`);
    lines.push(`- C=${row.concurrency}, actor rate-only: ${formatCpu(row.actorRateOnly.runs[0]?.cpu)}`);
    if (row.gubernator) lines.push(`- C=${row.concurrency}, Gubernator: ${formatCpu(row.gubernator.runs[0]?.cpu)}`);
  }
  lines.push(
    '',
    `Target (issue 17): at least ${LIMITER_TARGET_RATIO}x Gubernator’s throughput at no worse p99, at every ` +
      'concurrency, judged on the forward verdict (the decision the ' +
      'gateway really asks for); the rate-only row decides what Gubernator decides and shows what the rest costs.',
    '',
  );
  return lines;
}

function gatewayMarkdown(section: GatewaySection): string[] {
  const { settings } = section;
  const rates = settings.latency.map((level) => `${n(level.rate)} req/s for ${level.seconds} s`).join(' and ');
  const lines = [
    '## 2. Gateway: full path vs the sandbox directly vs nginx + limit_req',
    '',
    `Method: saturation with ${section.tools.wrk.replace(/ Copyright.*$/, '')} (${settings.saturation.threads} thread, ` +
      `${settings.saturation.connections} connections, ${settings.saturation.seconds} s per run after a warm-up per ` +
      `target: windows of ${settings.saturation.warmupSeconds} s until two in a row no longer beat the best before ` +
      `them by 5 %, after at least ${settings.saturation.minWarmupSeconds ?? 0} s of load and at most ` +
      `${settings.saturation.maxWarmupSeconds ?? settings.saturation.warmupSeconds} s (the ` +
      'windows are listed below); a Lua script sets X-API-Key to one of ' +
      `${settings.keys} keys at random on every request` +
      (settings.nginxKeys !== undefined && settings.nginxKeys !== settings.keys
        ? ` (nginx: one of ${n(settings.nginxKeys)}, as it passes more requests a second)`
        : '') +
      keyRateText(section) +
      '). Latency at fixed arrival ' +
      `rates with k6 ${section.tools.k6.split(' ')[1] ?? ''} (constant-arrival-rate, ${rates}; an open model: a ` +
      'slow answer does not lower the offered rate, so queueing shows in the percentiles instead of being hidden; ' +
      '`dropped` counts requests k6 could not even start on time; k6 is a separate Go process that holds the rate ' +
      'with little CPU, which a Node generator on the same 2 cores would take from the servers). ' +
      `${settings.runs} runs per target, interleaved, each after the processes went quiet; each figure is the ` +
      'better of the runs. Request: GET /v1.3/advertiser/info/ for one advertiser (an 846-byte JSON), no ' +
      'compression; gateway-video-shop: GET /authorization/202309/shops of one shop connection, on its own keys. ' +
      'Sandbox: SANDBOX_APP_QPS=0, SANDBOX_VIDEO_SHOP_APP_QPS=0, SANDBOX_LATENCY_MS=0; provider-proxy: ' +
      'VIDEO_ADS_APP_QPS=0, VIDEO_SHOP_APP_QPS=0. ' +
      `nginx: ${section.tools.nginx.replace('nginx version: ', '')}, worker_processes auto.`,
    '',
    `Calibration: a bare node:http server answering a small JSON does ${n(section.calibration.okPerSecond)} req/s ` +
      `here with the same wrk settings (docs/benchmarks.md: ~68,000 on its machine).`,
    '',
    `| target | path | saturated req/s (2xx) | p50 / p99 at saturation | ${settings.latency
      .map((level) => `p50 / p99 / max at ${n(level.rate)}/s (dropped)`)
      .join(' | ')} | non-2xx |`,
    `|---|---|---|---|${settings.latency.map(() => '---').join('|')}|---|`,
  ];
  for (const target of section.targets) {
    const non2xx = target.saturation.runs.map((run) => run.non2xx);
    const failed = target.atRates.flatMap((level) => level.runs.map((run) => pct(run.failedShare)));
    const faster = section.transports.find((transport) => `gateway-${transport.transport}` === target.name);
    lines.push(
      `| ${target.name}${faster?.faster ? ' (faster, kept)' : ''} | ${target.description} | ` +
        `${n(target.saturation.okPerSecond)} | ${ms(target.saturation.p50Ms)} / ${ms(target.saturation.p99Ms)} | ` +
        target.atRates
          .map(
            (level) =>
              `${ms(level.p50Ms)} / ${ms(level.p99Ms)} / ${ms(level.maxMs)} (${level.runs.map((run) => run.dropped).join(', ')})`,
          )
          .join(' | ') +
        ` | wrk ${non2xx.join(', ')}; k6 ${failed.join(', ')} |`,
    );
  }
  lines.push(...warmUpMarkdown(section));
  lines.push(
    '',
    `| gRPC transport | ${settings.latency
      .map((level) => `added p50 / p99 vs direct at ${n(level.rate)}/s | p99 minus nginx's`)
      .join(' | ')} | saturated throughput / nginx | / direct |`,
    `|---|${settings.latency.map(() => '---|---').join('|')}|---|---|`,
  );
  for (const transport of section.transports) {
    lines.push(
      `| ${transport.transport}${transport.faster ? ' (faster, kept)' : ''} | ` +
        transport.added
          .map((added) => `${ms(added.p50Ms)} / ${ms(added.p99Ms)} | ${ms(added.p99VsNginxMs)}`)
          .join(' | ') +
        ` | ${n(transport.throughputVsNginx, 3)} | ${n(transport.throughputVsDirect, 3)} |`,
    );
  }
  lines.push(...edgeStagesMarkdown(section));
  const processNames = [...new Set(section.cpuPerRequest.flatMap((row) => Object.keys(row.microsByProcess)))].filter(
    (name) => name !== 'bench (main)',
  );
  lines.push(
    '',
    'CPU time per 2xx answer, by process (µs; saturation run 1). Other load on the machine slows a run down but ' +
      'changes what one answer costs much less, so these are the steadiest figures here. 2 cores give 2,000,000 µs ' +
      'per second: a path that costs C µs in all cannot pass 2,000,000 / C answers per second on this machine.',
    '',
    `| target | servers in all | ${processNames.join(' | ')} |`,
    `|---|---|${processNames.map(() => '---').join('|')}|`,
    ...section.cpuPerRequest.map(
      (row) =>
        `| ${row.target} | ${n(row.serverMicros)} | ${processNames
          .map((name) => (row.microsByProcess[name] === undefined ? '-' : n(row.microsByProcess[name]!)))
          .join(' | ')} |`,
    ),
  );
  lines.push(...fixedRateCpuMarkdown(section));
  lines.push(...providersMarkdown(section));
  lines.push(...refusalMarkdown(section));
  lines.push('', 'Where the CPU went (first run of each; % of one core, 200 % = the machine):', '');
  for (const target of section.targets) {
    lines.push(`- ${target.name}, wrk saturation: ${formatCpu(target.saturation.runs[0]?.cpu)}`);
    for (const level of target.atRates) {
      lines.push(`- ${target.name}, k6 at ${n(level.rate)}/s: ${formatCpu(level.runs[0]?.cpu)}`);
    }
  }
  const kept = section.transports.find((transport) => transport.faster)!;
  lines.push(
    '',
    ...targetsMarkdown(section, kept),
    '',
    '<details><summary>nginx configuration used</summary>',
    '',
    '```nginx',
    section.nginxConfig.trim(),
    '```',
    '',
    '</details>',
    '',
  );
  return lines;
}

/**
 * Whether a process serves a target's requests: the sandbox for every target, nginx for nginx's, and the gateway's
 * processes for a gateway target (FerretDB too: it does the actors' usage writes). The rest of a run's processes are
 * idle there, and at a fixed rate their idle timers would count as much as the path.
 */
function onPathOf(target: string, process: string): boolean {
  if (process === 'platform-sandbox') return true;
  if (target === 'nginx') return process.startsWith('nginx');
  if (target === 'skeleton') return process.startsWith('skeleton-') || process === 'nats-server';
  if (!target.startsWith('gateway')) return false;
  if (process.startsWith('edge-auth'))
    return process === (target === 'gateway-unary' ? 'edge-auth (unary)' : 'edge-auth (stream)');
  return ['nats-server', 'quota-actor', 'provider-proxy', 'ferretdb'].includes(process);
}

/** CPU per request (µs) of one measured run, `requests` in `cpu.seconds`, by process on the target's path. */
function pathMicrosPerRequest(target: string, cpu: CpuUsage, requests: number): Map<string, number> {
  const byProcess = new Map<string, number>();
  for (const [name, percent] of cpuByName(cpu)) {
    if (onPathOf(target, name)) byProcess.set(name, ((percent / 100) * cpu.seconds * 1e6) / Math.max(1, requests));
  }
  return byProcess;
}

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

/** Context switches per request of the processes on the target's path, then the machine's; '-' in older reports. */
function switchesPerRequest(target: string, cpu: CpuUsage, requests: number): string {
  const byProcess = contextSwitchesByName(cpu);
  if (byProcess.size === 0 || cpu.contextSwitchesPerSecond === undefined) return '-';
  const onPath = sum([...byProcess].flatMap(([name, switches]) => (onPathOf(target, name) ? [switches] : [])));
  const perRequest = (switches: number) => n(switches / Math.max(1, requests), 1);
  return `${perRequest(onPath)} (${perRequest(cpu.contextSwitchesPerSecond * cpu.seconds)})`;
}

/**
 * Each target's CPU per request at the fixed arrival rates against its saturated figure, counting the processes on
 * its path: saturated, one wake-up of a process serves a batch of requests; at a fixed rate nearly every request
 * wakes each process, so the ratio is what this machine charges for a wake-up, the cost behind the fixed-rate tail
 * (docs/benchmarks.md).
 */
function fixedRateCpuMarkdown(section: GatewaySection): string[] {
  const rows: {
    label: string;
    byProcess: Map<string, number>;
    ratio?: number;
    switches: string;
    machine: string;
  }[] = [];
  for (const target of section.targets) {
    const saturatedRow = section.cpuPerRequest.find((row) => row.target === target.name);
    const saturated = saturatedRow
      ? sum(
          Object.entries(saturatedRow.microsByProcess).flatMap(([name, micros]) =>
            onPathOf(target.name, name) ? [micros] : [],
          ),
        )
      : 0;
    for (const level of target.atRates) {
      const run = level.runs[0];
      if (!run?.cpu || run.requests === 0) continue;
      const byProcess = pathMicrosPerRequest(target.name, run.cpu, run.requests);
      rows.push({
        label: `${target.name} at ${n(level.rate)}/s`,
        byProcess,
        ...(saturated > 0 ? { ratio: sum(byProcess.values()) / saturated } : {}),
        switches: switchesPerRequest(target.name, run.cpu, run.requests),
        machine:
          run.cpu.stealPercent === undefined ? '-' : `${n(run.cpu.machinePercent)} % / ${n(run.cpu.stealPercent, 1)} %`,
      });
    }
  }
  if (rows.length === 0) return [];
  const names = [...new Set(rows.flatMap((row) => [...row.byProcess.keys()]))];
  return [
    '',
    "CPU time per request at the fixed arrival rates (µs; k6 run 1), by process on the target's path. Saturated, " +
      'one wake-up of a process serves a batch of requests; at a fixed rate nearly every request wakes each ' +
      "process on its path, so `x saturated`, the path against its saturated figure, is what the machine's " +
      'wake-ups cost. `switches` counts the context switches per request of the processes on the path (all their ' +
      'threads; a process that exits during the run, as k6 does, is not counted), and in brackets those of the ' +
      'whole machine; `machine` is how busy the machine was and how much of its time the hypervisor gave to ' +
      'others (steal), both in % of one core: a busy machine and many switches point at a tail made by ' +
      'processes queueing for a core rather than by one process pausing (docs/benchmarks.md).',
    '',
    `| target and rate | path in all | ${names.join(' | ')} | x saturated | switches | machine busy / steal |`,
    `|---|---|${names.map(() => '---').join('|')}|---|---|---|`,
    ...rows.map(
      (row) =>
        `| ${row.label} | ${n(sum(row.byProcess.values()))} | ${names
          .map((name) => {
            const micros = row.byProcess.get(name);
            return micros === undefined ? '-' : n(micros);
          })
          .join(
            ' | ',
          )} | ${row.ratio === undefined ? '-' : `${n(row.ratio, 1)}x`} | ${row.switches} | ${row.machine} |`,
    ),
  ];
}

/** What the load keys may pass together, against which a saturated run must stay (older reports: the claim alone). */
export function keyRateText(section: GatewaySection): string {
  const rate = section.keyRate;
  if (rate === undefined) return ', so no key passes its rate and no CPU goes to refusals';
  return (
    `; each key may pass ${n(rate.rps)} req/s with a burst of ${n(rate.burst)}, so the gateway's keys may pass ` +
    `${n(section.settings.keys * rate.rps)} req/s together: a run that reaches that rate is held back by the ` +
    'limiter, not by the machine, and the targets below say so when it happens'
  );
}

/** A line for each limited target (the gateway's and nginx's, each over its keys) refused at saturation. */
export function cappedTargets(section: GatewaySection): string[] {
  return section.targets
    .filter((target) => target.name.startsWith('gateway') || target.name === 'nginx')
    .filter(refusedAtSaturation)
    .map((target) => {
      const keys =
        target.name === 'nginx' ? (section.settings.nginxKeys ?? section.settings.keys) : section.settings.keys;
      return (
        `- **${target.name}'s saturation runs got answers other than 2xx** ` +
        `(${target.saturation.runs.map((run) => n(run.non2xx)).join(', ')} in its runs, at up to ` +
        `${n(target.saturation.okPerSecond)} 2xx/s` +
        (section.keyRate ? ` against its ${n(keys)} keys' ${n(keys * section.keyRate.rps)} req/s together` : '') +
        "): its throughput and CPU per answer are not its path's own, and a target above that uses them is not " +
        "evaluated; give it more keys (bench/main.ts) or read the services' logs"
      );
    });
}

/** Issue 17's targets, each with its figure from this run; older reports (no refusal run) keep their own two. */
function targetsMarkdown(section: GatewaySection, kept: GatewaySection['transports'][number]): string[] {
  const at200 = latencyTargetLevel(kept);
  const lines = [
    `Targets (faster transport, ${kept.transport}; issue 17, ratios within this run):`,
    '',
    `- added p99 at ${n(at200.rate)} req/s <= ${TARGET_BOUNDS.addedP99Ms} ms: ${ms(at200.p99Ms)} -> ` +
      `${met(section.targetsMet.addedP99AtRate)}`,
    `- saturated full-path throughput >= ${TARGET_BOUNDS.throughputVsNginx}x nginx's: ` +
      `${ratioAgainst(kept.throughputVsNginx, TARGET_BOUNDS.throughputVsNginx, 3)}x -> ` +
      `${met(section.targetsMet.throughputVsNginx)}`,
  ];
  if (section.cpuVsNginx !== undefined) {
    lines.push(
      `- gateway CPU per answer (all gateway processes, sandbox left out) <= ${TARGET_BOUNDS.cpuVsNginx}x nginx's: ` +
        `${ratioAgainst(section.cpuVsNginx, TARGET_BOUNDS.cpuVsNginx, 2)}x -> ${met(section.targetsMet.cpuVsNginx)}` +
        (section.cpuVsNginxWithoutDatabase === undefined
          ? ''
          : ` (${n(section.cpuVsNginxWithoutDatabase, 2)}x without FerretDB, the MongoDB stand-in)`),
    );
  }
  if (section.vsSkeleton) {
    lines.push(
      `- for reference, not a target: the gateway against the skeleton of its design (the same hops without its ` +
        `logic): CPU per answer ${n(section.vsSkeleton.cpu, 2)}x (both without the sandbox and ` +
        `FerretDB), saturated throughput ${n(section.vsSkeleton.throughput, 3)}x`,
    );
    // Added as the gateway's: the skeleton's p99 minus direct's, at the rate of the latency target.
    const p99At = (name: GatewayTargetName) =>
      section.targets.find((target) => target.name === name)?.atRates.find((level) => level.rate === at200.rate)?.p99Ms;
    const skeletonP99 = p99At('skeleton');
    const directP99 = p99At('direct');
    if (skeletonP99 !== undefined && directP99 !== undefined) {
      const skeletonAdded = skeletonP99 - directP99;
      lines.push(
        `- for reference, not a target: the skeleton's own added p99 at ${n(at200.rate)} req/s (the design's hops ` +
          `with none of the gateway's logic): ${ms(skeletonAdded)}; the gateway's ${ms(at200.p99Ms)}, ` +
          `${ms(at200.p99Ms - skeletonAdded)} over it`,
      );
    }
  }
  if (section.refusal) {
    const refused = section.refusal.refusedVsNginxWorkers ?? section.refusal.refusedVsNginx;
    lines.push(
      `- refusals (keys over their rate, 429 with RateLimit headers) >= ${TARGET_BOUNDS.refusalVsNginx}x nginx ` +
        "limit_req's 429/s " +
        `(edge-auth WORKERS=${section.refusal.workers ?? 1} as nginx worker_processes auto): ` +
        `${ratioAgainst(refused, TARGET_BOUNDS.refusalVsNginx, 3)}x -> ` +
        `${met(section.targetsMet.refusalVsNginx)}`,
    );
  }
  lines.push(...cappedTargets(section));
  return lines;
}

/** The warm-up windows of each target (reports made before the warm-up ran until steady have none). */
function warmUpMarkdown(section: GatewaySection): string[] {
  const rows: [string, WarmUp | undefined][] = [
    ['bare node:http (calibration)', section.calibration.warmUp],
    ...section.targets.map((target): [string, WarmUp | undefined] => [target.name, target.warmUp]),
  ];
  if (rows.every(([, warmUp]) => !warmUp)) return [];
  return [
    '',
    'Warm-up before the measured runs, 2xx/s per window (a Node process runs code V8 has not optimized yet in its ' +
      'first seconds under load; docs/benchmarks.md, "Warm-up"):',
    '',
    '| target | warm-up |',
    '|---|---|',
    ...rows.map(([name, warmUp]) => `| ${name} | ${warmUpText(warmUp)} |`),
  ];
}

function refusalMarkdown(section: GatewaySection): string[] {
  const refusal = section.refusal;
  if (!refusal) return [];
  const processNames = [...new Set(refusal.targets.flatMap((row) => Object.keys(row.cpu.microsByProcess)))].filter(
    (name) => name !== 'bench (main)',
  );
  return [
    '',
    '### 2b. Refusal path',
    '',
    `${n(refusal.keys)} keys of one customer on a metered plan of 1 request per second (burst 1), hammered with the same wrk ` +
      'settings as above: nearly every request is refused. nginx limit_req has the same rate and burst per ' +
      'X-API-Key. gateway-refusal is the edge as shipped (refusals held at the edge while the quota-actor says they ' +
      'hold), one process; gateway-refusal-workers the same edge with WORKERS set to the cores, as nginx runs ' +
      'worker_processes auto; gateway-refusal-no-hold an edge with HOLD_REFUSALS=false, where every refusal asks ' +
      'the quota-actor.',
    '',
    '| target | path | 429/s (best run) | 2xx/s | sample refusal | CPU per answer, servers (µs) | warm-up, 429/s |',
    '|---|---|---|---|---|---|---|',
    ...refusal.targets.map(
      (row) =>
        `| ${row.name} | ${row.description} | ${n(row.refusedPerSecond)} | ${n(row.okPerSecond)} | ` +
        `${row.sample.status} ${row.sample.code ?? ''}${row.sample.rateLimitHeader ? ', RateLimit headers' : ''}` +
        `${row.sample.retryAfter ? `, Retry-After ${row.sample.retryAfter}` : ''} | ${n(row.cpu.serverMicros)} | ` +
        `${warmUpText(row.warmUp)} |`,
    ),
    '',
    'CPU per answer by process (µs, run 1):',
    '',
    `| target | ${processNames.join(' | ')} |`,
    `|---|${processNames.map(() => '---').join('|')}|`,
    ...refusal.targets.map(
      (row) =>
        `| ${row.name} | ${processNames
          .map((name) => (row.cpu.microsByProcess[name] === undefined ? '-' : n(row.cpu.microsByProcess[name]!)))
          .join(' | ')} |`,
    ),
    '',
    `gateway / nginx 429s per second: ${n(refusal.refusedVsNginxWorkers ?? Number.NaN, 3)}x held with ` +
      `WORKERS=${refusal.workers ?? '-'}, ${n(refusal.refusedVsNginx, 3)}x held in one process, ` +
      `${n(refusal.refusedVsNginxWithoutHold, 3)}x without holds -> ${met(refusal.met)} (target 0.5x, workers row).`,
    ...(refusal.ceiling
      ? [
          '',
          `Ceiling: a bare node:http server in one process answering a small JSON, with no key and no check, ` +
            `measured between the same runs, answered ${n(refusal.ceiling.answersPerSecond)} requests per second ` +
            `(${n(refusal.ceiling.cpuMicros)} µs of server CPU each): ${n(refusal.ceiling.vsNginx, 3)}x nginx's 429s. ` +
            `No one-process edge built on node:http can refuse faster than that here; gateway-refusal (one process) ` +
            `reached ${n(refusal.refusedVsNginx / refusal.ceiling.vsNginx, 2)} of it.`,
        ]
      : []),
    ...(refusal.answerCeiling
      ? [
          '',
          `The same server writing gateway-refusal's own refusal instead (its status, fields and problem body, a ` +
            `fresh request id each, the answers of a turn ended together as edge-auth does), between the same runs: ` +
            `${n(refusal.answerCeiling.answersPerSecond)} 429/s (${n(refusal.answerCeiling.cpuMicros)} µs of server ` +
            `CPU each), ${n(refusal.answerCeiling.vsNginx, 3)}x nginx's: what node:http costs for the answer the spec ` +
            `asks for, without the gateway's logic. gateway-refusal (one process) reached ` +
            `${n(refusal.refusedVsNginx / refusal.answerCeiling.vsNginx, 2)} of it.`,
        ]
      : []),
  ];
}

/** video-shop (signed by provider-proxy, verified by the sandbox) beside video-ads, same edge, same run. */
function providersMarkdown(section: GatewaySection): string[] {
  const rows = section.providers?.rows;
  if (!rows || rows.length === 0) return [];
  const processNames = [...new Set(rows.flatMap((row) => Object.keys(row.cpu.microsByProcess)))].filter(
    (name) => name !== 'bench (main)' && name !== 'wrk',
  );
  const ads = rows.find((row) => row.provider === 'video-ads');
  return [
    '',
    'Per provider over the same edge-auth (stream transport), saturation run 1: CPU time per 2xx answer by process ' +
      '(µs). video-shop adds what its path costs: provider-proxy signs every request (HMAC-SHA256 over path, query ' +
      'and body) and the sandbox verifies the signature.',
    '',
    `| provider | request | saturated req/s (2xx) | servers in all | ${processNames.join(' | ')} |`,
    `|---|---|---|---|${processNames.map(() => '---').join('|')}|`,
    ...rows.map(
      (row) =>
        `| ${row.provider} | ${row.request} | ${n(row.okPerSecond)} | ${n(row.cpu.serverMicros)}` +
        (ads && row !== ads && ads.cpu.serverMicros > 0
          ? ` (${n(row.cpu.serverMicros / ads.cpu.serverMicros, 2)}x)`
          : '') +
        ` | ${processNames
          .map((name) => (row.cpu.microsByProcess[name] === undefined ? '-' : n(row.cpu.microsByProcess[name]!)))
          .join(' | ')} |`,
    ),
  ];
}

/** The gateway's fixed-rate runs, split by where their requests waited (edge-auth's histograms). */
function edgeStagesMarkdown(section: GatewaySection): string[] {
  const rows: string[] = [];
  const pair = (figures: StageFigures) => `${ms(figures.p50Ms)} / ${ms(figures.p99Ms)}`;
  const pauses = (figures: CollectorFigures | undefined) =>
    figures ? `${n(figures.pauses)}, ${ms(figures.totalMs)}, ${n(figures.over10Ms)}` : 'n/a';
  for (const target of section.targets) {
    for (const level of target.atRates) {
      level.edgeStages.forEach((stages, index) => {
        const run = level.runs[index]!;
        rows.push(
          `| ${target.name} | ${n(level.rate)}/s | ${index + 1} | ${ms(run.latencyMs.p50)} / ${ms(run.latencyMs.p99)} | ` +
            `${pair(stages.request)} | ${pair(stages.decision)} | ${pair(stages.provider)} | ` +
            `${pair(stages.platform)} | ${n(stages.request.count)} | ${pauses(stages.collector?.edge)} | ` +
            `${pauses(stages.collector?.proxy)} |`,
        );
      });
    }
  }
  if (rows.length === 0) return [];
  return [
    '',
    'Where the gateway’s fixed-rate requests waited, from edge-auth’s own histograms (p50 / p99, interpolated ' +
      'inside buckets bounded at 0.5, 1, 2.5, 5, 10, 25 and 50 ms, so read them as ranges). `inside edge-auth` is ' +
      'from the parsed request to the finished response; `decision` is the wait for the quota-actor’s verdict ' +
      '(NATS both ways and the actor); `provider` the wait for provider-proxy’s answer (gRPC, the proxy and the ' +
      'sandbox); `platform` provider-proxy’s own call to the sandbox (its upstream histogram), part of `provider`. ' +
      'What k6 measured beyond `inside edge-auth` was spent in the kernel, in edge-auth’s event loop before its ' +
      'handler ran, or in k6. The last two columns are the collector pauses of edge-auth and provider-proxy in the ' +
      'run (how many, their total, how many over 10 ms): each pause holds every request in that process.',
    '',
    '| target | rate | run | k6 p50 / p99 | inside edge-auth | decision | provider | platform | 200s counted | ' +
      'edge-auth pauses | provider-proxy pauses |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

function lossBoundText(result: QuotaResult): string {
  if (!result.killedActor) return 'bound: 0';
  const keys = result.killedActor.keysOwned;
  return (
    `bound ${n(result.lossBound)}: ${keys} chunk${keys === 1 ? '' : 's'} of ${result.chunk} (the killed node's ` +
    `keys) + ${result.clients} unanswered decisions`
  );
}

function quotaLine(result: QuotaResult): string {
  const outcomes = Object.entries(result.outcomes)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  const kill = result.killedActor
    ? `killed ${result.killedActor.nodeId} after ${result.killedActor.afterAdmitted} admitted; first admission of a ` +
      `request sent after the kill ${result.killedActor.gapToNextAdmitMs === null ? 'never came' : `${n(result.killedActor.gapToNextAdmitMs)} ms after it`}`
    : '-';
  return (
    `| ${result.keys > 1 ? `${result.keys} keys of one customer on two owners, ` : ''}` +
    `${result.kill9 ? 'with kill -9 of the owner' : 'no failure'} | ${result.edges} x ${result.clients / result.edges} | ` +
    `${n(result.monthlyQuota)} | ${n(result.admitted)} | ${result.extra} | ${result.lost} (${lossBoundText(result)}) | ` +
    `${n(result.ledgerUsed)} | ${n(result.sandboxRequests)} | ${outcomes} | ${kill} | ${met(result.met)} |`
  );
}

function accuracyMarkdown(section: AccuracySection): string[] {
  const hot = section.hotKey;
  return [
    '## 3. Accuracy',
    '',
    `Hot key: one key of the business plan (${hot.rps} rps, burst ${hot.burst}) offered ${hot.offeredPerSecond} req/s ` +
      `(${section.settings.overload}x) for ${section.settings.hotKeySeconds} s through ${hot.edges} edge processes, ` +
      'alternating, by an open-loop Node generator (requests leave on schedule whatever the answers). Its limit over ' +
      'the T seconds between the first and the last request sent is burst + rps x T. Decisions happen between a ' +
      'request and its answer, so when answers lag (latency not small against T) the limiter’s own window is ' +
      'longer; the limit over first request to last answer is shown too.',
    '',
    '| sent | T | admitted | limit (burst + rps x T) | deviation | latency p50 / p99 / max | limit over first request to last answer | outcomes | within ±2 % |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${n(hot.sent)} | ${hot.seconds.toFixed(3)} s | ${n(hot.admitted)} | ${n(hot.limit, 1)} | ${pct(hot.deviation)} | ` +
      `${ms(hot.latencyMs.p50)} / ${ms(hot.latencyMs.p99)} / ${ms(hot.latencyMs.max)} | ` +
      `${n(hot.limitOverAnswers, 1)} (${hot.answerSeconds.toFixed(3)} s) | ` +
      `${Object.entries(hot.outcomes)
        .map(([code, count]) => `${code} ${count}`)
        .join(', ')} | ${met(hot.withinTwoPercent)} |`,
    '',
    `Block-mode quota: one key (block, monthly_quota ${n(section.quota.monthlyQuota)}, a rate that never limits, so ` +
      `reservations come in chunks of ${section.quota.chunk}); ${section.quota.edges} edges x ` +
      `${section.quota.clients / section.quota.edges} closed-loop clients each until it is told quota_exceeded. ` +
      `The crash run uses a second key and kill -9s the quota-actor that owns the key's partition once ` +
      `${pct(section.settings.killAtShare)} of the quota was admitted; the other actor takes the partition over. ` +
      'The customer run drains two keys of one customer (the quota is the customer’s), owned by the two actor ' +
      'nodes once they split the partitions evenly, and kill -9s the owner of the first. ' +
      '`lost` = units the ledger counts that were never admitted (the dead owner’s unused reservation, counted ' +
      'against the customer by design); its bound is one chunk per key whose partition the killed node held at ' +
      'the kill, plus one unanswered decision per client.',
    '',
    '| run | edges x clients | monthly_quota | admitted | extra | lost | ledger used | requests at sandbox | outcomes | kill | target |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    quotaLine(section.quota),
    quotaLine(section.quotaCrash),
    ...(section.customerCrash ? [quotaLine(section.customerCrash)] : []),
    '',
  ];
}

function commandLine(report: BenchReport): string {
  const args = [
    ...(report.sections.length < BENCH_SECTIONS.length ? ['--only', report.sections.join(',')] : []),
    ...(report.mode === 'quick' ? ['--quick'] : []),
    ...(report.profiled ? ['--profile'] : []),
    ...(report.telemetry ? ['--telemetry'] : []),
  ];
  return `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

function profilesMarkdown(profiles: NonNullable<BenchReport['profiles']>): string[] {
  const lines = [
    '## CPU profiles (--profile: V8 sampling profiler during one measured window; self time as % of busy time)',
    '',
  ];
  for (const profile of profiles) {
    lines.push(
      `### ${profile.label}: ${profile.service} (${profile.sampledSeconds.toFixed(1)} s sampled, busy ${profile.busyShare}% of it)`,
      '',
      `By origin: ${profile.origins
        .slice(0, 8)
        .map((origin) => `${origin.origin} ${origin.selfPercent}%`)
        .join(', ')}`,
      '',
      '| self % | function | where |',
      '|---|---|---|',
      ...profile.functions.slice(0, 12).map((fn) => `| ${fn.selfPercent} | ${fn.name} | ${fn.where} |`),
      '',
    );
  }
  return lines;
}

export function renderMarkdown(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# Benchmark report (${report.mode}) — ${report.startedAt}`,
    '',
    `\`${commandLine(report)}\`, ${n(report.totalSeconds)} s in all.`,
    '',
    '## Machine',
    '',
    `- ${m.nproc} cores (${m.cpuModel}), ${m.memoryGiB} GiB memory, Linux ${m.kernel}, Node ${m.node}; load average ` +
      `${m.loadAverageAtStart} when the run started.`,
    '- **Client and server share the same 2 cores**: every load generator (wrk, k6, the Node clients), every ' +
      'service of the gateway, NATS, FerretDB, nginx and Gubernator run on this machine at once, and other people’s ' +
      'tests may be running too. Read the figures as ratios within this run, not as capacity.',
    ...Object.entries(report.environment).map(([name, value]) => `- ${name}: ${value}`),
    ...(report.telemetry
      ? [
          `- ${tracedRunLine(report.telemetry)} edge-auth, provider-proxy and the quota-actors only; nginx, the ` +
            'skeleton, Gubernator and mcp-server run as without it.',
        ]
      : []),
    `- Before each section the run waits until no process of ours uses more than 10 % of a core: ${
      report.settling
        .map(
          (item) =>
            `${item.before} ${(item.waitedMs / 1000).toFixed(0)} s${item.quiet ? '' : ` (gave up; still busy: ${item.busy})`}`,
        )
        .join(', ') || 'n/a'
    }.`,
    '',
  ];
  const section = <T extends object>(value: T | { skipped: string } | undefined, render: (value: T) => string[]) => {
    if (!value) return;
    if ('skipped' in value) lines.push(`_${value.skipped}_`, '');
    else lines.push(...render(value as T));
  };
  section(report.limiter, limiterMarkdown);
  section(report.gateway, gatewayMarkdown);
  section(report.accuracy, accuracyMarkdown);
  if (report.mcp) lines.push(...mcpMarkdown(report.mcp));
  if (report.profiles?.length) lines.push(...profilesMarkdown(report.profiles));
  if (report.notes.length > 0) lines.push('## Notes', '', ...report.notes.map((note) => `- ${note}`), '');
  return lines.join('\n');
}
