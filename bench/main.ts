/**
 * `npm run bench [-- [--only limiter|gateway|accuracy|mcp[,...]] [--quick] [--profile] [--from-source] [--telemetry]]`
 *
 * Starts everything it needs (NATS, FerretDB, the gateway cluster, nginx, Gubernator, load generators), runs the
 * three benchmarks of the hot-path issue, prints the report and writes reports/bench-<timestamp>.{md,json}.
 * Every load is bounded in count and time and sent to 127.0.0.1 only.
 */
import { MCP_BENCH_FULL, MCP_BENCH_QUICK, runMcpBench, type McpBenchSettings } from './mcp/mcp.bench';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pingMongo, repoRoot } from '@gateway/testing';
import { runAccuracyBench, type AccuracySettings } from './accuracy/accuracy.bench';
import { buildIn } from './builds/checkouts';
import { runGatewayBench, type GatewaySettings } from './gateway/gateway.bench';
import { traceAsTheChart } from './lib/chart-tracing';
import { describeMachine } from './lib/machine';
import { reportStamp, runMain, writeReportFiles } from './lib/report-files';
import { settle } from './lib/settle';
import { ensureDebianTool, ensureGoTool } from './lib/tools';
import { runLimiterBench, type LimiterSettings } from './limiter/limiter.bench';
import { summarizeProfiles } from './report/cpu-profile';
import { BENCH_SECTIONS, renderMarkdown, type BenchReport, type BenchSection } from './report/report';
import { BenchEnvironment } from './setup/bench-environment';

type Section = BenchSection;
const SECTIONS: Section[] = [...BENCH_SECTIONS];

interface Settings {
  limiter: LimiterSettings;
  gateway: GatewaySettings;
  accuracy: AccuracySettings;
  mcp: McpBenchSettings;
}

/**
 * The gateway's targets spread their load over this many business-plan keys (100 req/s each): 25,600 req/s together,
 * well above what the gateway passes here. Over 128 keys a fast machine's gateway reached their combined rate and its
 * saturation runs counted refusals (docs/benchmarks.md, "Keys enough for the gateway's load").
 */
const GATEWAY_KEYS = 256;

const FULL: Settings = {
  limiter: { concurrencies: [8, 64], keys: 500, warmupMs: 3_000, warmupMaxMs: 12_000, durationMs: 6_000, runs: 2 },
  gateway: {
    keys: GATEWAY_KEYS,
    nginxKeys: 1024,
    saturation: {
      threads: 1,
      connections: 64,
      seconds: 6,
      warmupSeconds: 2,
      minWarmupSeconds: 8,
      maxWarmupSeconds: 24,
    },
    latency: [
      { rate: 1000, seconds: 10 },
      { rate: 200, seconds: 6 },
    ],
    runs: 2,
  },
  accuracy: { hotKeySeconds: 20, overload: 5, clientsPerEdge: 64, monthlyQuota: 5_000, killAtShare: 0.35 },
  mcp: MCP_BENCH_FULL,
};

const QUICK: Settings = {
  limiter: { concurrencies: [64], keys: 200, warmupMs: 2_000, warmupMaxMs: 6_000, durationMs: 3_000, runs: 1 },
  gateway: {
    keys: GATEWAY_KEYS,
    nginxKeys: 1024,
    saturation: {
      threads: 1,
      connections: 64,
      seconds: 3,
      warmupSeconds: 2,
      minWarmupSeconds: 8,
      maxWarmupSeconds: 14,
    },
    latency: [
      { rate: 1000, seconds: 4 },
      { rate: 200, seconds: 3 },
    ],
    runs: 1,
  },
  accuracy: { hotKeySeconds: 5, overload: 5, clientsPerEdge: 64, monthlyQuota: 3_000, killAtShare: 0.35 },
  mcp: MCP_BENCH_QUICK,
};

interface Args {
  sections: Section[];
  quick: boolean;
  profile: boolean;
  fromSource: boolean;
  telemetry: boolean;
}

function parseArgs(argv: string[]): Args {
  let sections = [...SECTIONS];
  let quick = false;
  let profile = false;
  let fromSource = false;
  let telemetry = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--from-source') fromSource = true;
    else if (arg === '--telemetry') telemetry = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg.startsWith('--only=') ? arg.slice('--only='.length) : argv[++i];
      const wanted = (value ?? '').split(',').filter(Boolean);
      const unknown = wanted.filter((name) => !SECTIONS.includes(name as Section));
      if (wanted.length === 0 || unknown.length > 0) {
        throw new Error(`--only takes ${SECTIONS.join('|')} (comma-separated), got "${value ?? ''}"`);
      }
      sections = SECTIONS.filter((name) => wanted.includes(name));
    } else if (arg === '--help' || arg === '-h') {
      console.log(
        'usage: npm run bench -- [--only limiter|gateway|accuracy|mcp[,...]] [--quick] [--profile] [--from-source] ' +
          '[--telemetry]',
      );
      console.log(
        '  --profile      quota-actor, edge-auth, provider-proxy and mcp-server run with node --cpu-prof; the report',
      );
      console.log('                 summarizes their profiles, the files stay in reports/profiles-<timestamp>/');
      console.log('  --from-source  the services run from their sources through tsx, as in development, instead of');
      console.log('                 compiled (npm run build) as the images run them');
      console.log('  --telemetry    edge-auth, provider-proxy and the quota-actors run traced as the Helm chart runs');
      console.log('                 them with an OTLP endpoint (its sampler and protocol), exporting to a receiver in');
      console.log('                 the bench process; the baselines run as without it');
      process.exit(0);
    } else {
      throw new Error(`unknown argument ${arg} (try --help)`);
    }
  }
  if (telemetry && fromSource) {
    throw new Error(
      '--telemetry preloads the compiled telemetry (libs/telemetry/dist), which --from-source does not build',
    );
  }
  return { sections, quick, profile, fromSource, telemetry };
}

/** The benchmark measures what ships: every workspace compiled by tsc, as the images build it. */
async function buildServices(log: (message: string) => void): Promise<void> {
  log('build: npm run build (the services run compiled, as in their images; --from-source skips this)');
  await buildIn(repoRoot());
}

async function main(): Promise<void> {
  const { sections, quick, profile, fromSource, telemetry } = parseArgs(process.argv.slice(2));
  const settings = quick ? QUICK : FULL;
  const startedAt = new Date();
  const t0 = Date.now();
  const log = (message: string) => console.log(`[bench +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  const report: BenchReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: '',
    totalSeconds: 0,
    mode: quick ? 'quick' : 'full',
    sections,
    profiled: profile,
    machine: describeMachine(),
    environment: {},
    settling: [],
    notes: [],
  };
  log(`sections: ${sections.join(', ')}${quick ? ' (quick)' : ''}`);

  // Tools first: a missing one skips its section (or its baseline) with the reason in the report.
  const wanted = (section: Section) => sections.includes(section);
  const wrk = wanted('gateway') ? await ensureDebianTool('wrk', ['wrk'], ['--version'], log) : undefined;
  const nginx = wanted('gateway') ? await ensureDebianTool('nginx', ['nginx-light', 'nginx'], ['-v'], log) : undefined;
  const k6 = wanted('gateway') ? await ensureGoTool('k6', ['version'], log) : undefined;
  const gubernator = wanted('limiter') ? await ensureGoTool('gubernator', ['--version'], log) : undefined;

  const workDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  const reportsDir = join(repoRoot(), 'reports');
  const stamp = reportStamp(report.startedAt);
  const profileDir = profile ? join(reportsDir, `profiles-${stamp}`) : undefined;
  let env: BenchEnvironment | undefined;
  const traced = telemetry ? await traceAsTheChart(repoRoot(), log) : undefined;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping everything the benchmark started`);
    void (env?.stop() ?? Promise.resolve())
      .then(() => rm(workDir, { recursive: true, force: true }))
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const loadKeys = Math.max(
      wanted('limiter') ? settings.limiter.keys : 0,
      wanted('gateway') ? settings.gateway.keys : 0,
      wanted('mcp') ? settings.mcp.keys : 0,
      16,
    );
    if (profileDir) await mkdir(profileDir, { recursive: true });
    if (!fromSource) await buildServices(log);
    env = await BenchEnvironment.start({
      loadKeys,
      monthlyQuota: settings.accuracy.monthlyQuota,
      profileDir,
      compiled: !fromSource,
      log,
    });
    report.environment = {
      NATS: env.nats.started ? `nats-server started for this run (${env.nats.url})` : `NATS_URL ${env.nats.url}`,
      'MongoDB-wire server': env.mongo.started
        ? `FerretDB 1.24 (${env.mongo.backend === 'postgresql' ? 'PostgreSQL backend' : 'SQLite'}) started for this run`
        : 'MONGODB_URI',
      'Gateway processes':
        'platform-sandbox, provider-proxy, 1 quota-actor for the gateway runs (a second one joins for the accuracy ' +
        'runs, one of the two is killed there, the survivor serves the limiter runs), edge-auth per gRPC transport ' +
        '(stream, unary; a second stream edge for the accuracy runs); one Node process each, ' +
        (fromSource
          ? 'run from their sources through tsx (--from-source), '
          : 'compiled by `npm run build` and run as the images run them (node <flags> dist/main.js), ') +
        'NODE_ENV=test, ' +
        `LOG_LEVEL=warn, PARTITIONS=${env.cluster.sharedEnv.PARTITIONS}, ` +
        (traced ? 'traced as the chart ships it (below)' : 'no OpenTelemetry exporter'),
      'Seeded keys':
        `${env.loadKeys.length} load keys (business plan), 1 hot key, 2 block-mode quota keys; ` +
        `${env.shopKeys.length} video-shop keys on one shop connection (business plan, granted through the ` +
        'sandbox route /_sandbox/video-shop/grants)',
      'Order of the sections': 'gateway, accuracy, limiter (reported in the order of the issue)',
      'Database URI': 'maxPoolSize=8 per client process (FerretDB 1.24 deadlocks at about 50 concurrent updates)',
    };

    const quiet = async (before: string) => {
      const result = await settle(90_000);
      const seconds = (result.waitedMs / 1000).toFixed(0);
      log(
        `settle before ${before}: ${result.quiet ? `quiet after ${seconds} s` : `still busy after ${seconds} s: ${result.busy}`}`,
      );
      report.settling.push({ before, ...result });
    };
    // Order: gateway, accuracy, limiter. The limiter primes every one of its keys at the actor, which opens a
    // usage document per key in the database; FerretDB 1.24 (SQLite) has stopped answering after such bursts
    // (see the report's notes), and running the limiter last keeps the other sections independent of it.
    const databaseAnswers = async (section: string): Promise<boolean> => {
      const ping = await pingMongo(env!.dbUri, 5_000);
      if (!ping.ok) log(`${section}: the MongoDB-wire server does not answer a ping; section skipped`);
      return ping.ok;
    };
    const dead = (section: string) => ({
      skipped: `${section} skipped: the MongoDB-wire server stopped answering (see the notes)`,
    });
    if (wanted('gateway')) {
      const missing = [wrk, nginx, k6].filter((tool) => tool && !tool.ok);
      if (missing.length > 0) {
        report.gateway = {
          skipped: `gateway benchmark skipped: ${missing.map((tool) => (tool!.ok ? '' : tool!.reason)).join('; ')}`,
        };
      } else if (!(await databaseAnswers('gateway'))) {
        report.gateway = dead('gateway benchmark');
      } else {
        await quiet('gateway');
        log('== 2. gateway');
        const ok = (tool: typeof wrk) => tool as { ok: true; path: string; version: string };
        report.gateway = await runGatewayBench(
          env,
          { wrk: ok(wrk), k6: ok(k6), nginx: ok(nginx) },
          settings.gateway,
          workDir,
          log,
        );
      }
    }
    if (wanted('accuracy')) {
      if (!(await databaseAnswers('accuracy'))) report.accuracy = dead('accuracy benchmark');
      else {
        await quiet('accuracy');
        log('== 3. accuracy');
        report.accuracy = await runAccuracyBench(env, settings.accuracy, log);
      }
    }
    if (wanted('mcp')) {
      await quiet('mcp');
      log('== 4. mcp');
      report.mcp = await runMcpBench(env, settings.mcp, log);
    }
    if (wanted('limiter')) {
      if (!(await databaseAnswers('limiter'))) report.limiter = dead('limiter benchmark');
      else {
        await quiet('limiter');
        log('== 1. limiter');
        report.limiter = await runLimiterBench(env, gubernator!, settings.limiter, workDir, log);
      }
    }
  } finally {
    log('stopping the cluster and infrastructure');
    await env?.stop();
    await traced?.close();
    await rm(workDir, { recursive: true, force: true });
  }
  if (traced) report.telemetry = traced.receipts();

  if (quick) report.notes.push('--quick: short single runs, fewer keys; not for comparison with full runs.');
  report.notes.push(
    'FerretDB’s CPU in the tables is mostly the quota-actor’s usage flush: every USAGE_FLUSH_MS (5 s) the node ' +
      'writes one document update per key used since the last flush, so the cost follows ' +
      'the number of active keys, not the request rate. The run uses FerretDB’s PostgreSQL backend when a ' +
      'PostgreSQL answers (BENCH_FERRETDB_POSTGRESQL_URL; `none` for SQLite): FerretDB’s SQLite backend scans the ' +
      'whole collection on every update (docs/benchmarks.md, "FerretDB in the figures": 2.9 ms of CPU per update at ' +
      '300 documents, 17.8 ms at 3,000), so there its share grows as the runs fill the collections; MongoDB and ' +
      'FerretDB on PostgreSQL update by _id through the index.',
  );
  const gubernatorVersion =
    report.limiter && 'rows' in report.limiter && 'version' in report.limiter.gubernator
      ? report.limiter.gubernator.version
      : undefined;
  if (gubernatorVersion && gubernatorVersion !== 'v2.19.1') {
    report.notes.push(
      `Gubernator ${gubernatorVersion} was the baseline, not the v2.19.1 the issue names: the Go module proxy ` +
        'refuses v2.19.1 ("This module version is not available"), and scripts/tools/install.sh builds the newest ' +
        'version it serves instead. GUBERNATOR_BIN=/path/to/gubernator runs the comparison against another binary.',
    );
  }
  if (report.limiter && 'rows' in report.limiter && 'unavailable' in report.limiter.gubernator) {
    report.notes.push(
      'The Gubernator comparison could not be made on this machine; the limiter target is not evaluated. ' +
        'Provide a gubernator v2.19.1 binary with GUBERNATOR_BIN=/path/to/gubernator (or in .tools/bin) and rerun ' +
        '`npm run bench -- --only limiter`.',
    );
  }
  if (profileDir && env) {
    const windows = env.profileWindows;
    report.profiles = (await summarizeProfiles(profileDir))
      .map((summary) => {
        const window = windows.find((candidate) => candidate.pid === summary.pid && candidate.seq === summary.seq);
        return { ...summary, service: window?.service ?? `pid ${summary.pid}`, label: window?.label ?? '' };
      })
      .sort((a, b) => a.label.localeCompare(b.label) || a.service.localeCompare(b.service));
  }
  const finishedAt = new Date();
  report.finishedAt = finishedAt.toISOString();
  report.totalSeconds = (finishedAt.getTime() - startedAt.getTime()) / 1000;

  await writeReportFiles('bench', stamp, renderMarkdown(report), report, log);
}

runMain(main);
