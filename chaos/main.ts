/**
 * `npm run chaos [-- --quick] [--only 1,2,...]`
 *
 * Starts its own gateway on loopback (nats-server, FerretDB, sandbox, 2 edge-auth, 2 quota-actor, 2 provider-proxy,
 * 1 mcp-server, every service under the stack's supervisor), runs the fault scenarios of docs/chaos.md under a bounded
 * load, prints one line per scenario and writes reports/chaos-<ISO time>.md. Exits 1 when a target is not met.
 */
import { repoRoot } from '@gateway/testing';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChaosCluster } from './cluster/chaos-cluster';
import { renderMarkdown, resultLine, type ChaosReport } from './report/chaos-report';
import { databaseOutageScenario } from './scenarios/database-outage.scenario';
import { longNatsOutageScenario, natsOutageScenario } from './scenarios/nats-outage.scenario';
import { platformFaultsScenario } from './scenarios/platform-faults.scenario';
import { proxyCrashScenario } from './scenarios/proxy-crash.scenario';
import { rollingRestartScenario } from './scenarios/rolling-restart.scenario';
import { ScenarioSkipped, type Profile, type Scenario, type ScenarioResult } from './scenarios/scenario';
import { slowClientsScenario } from './scenarios/slow-clients.scenario';

const FULL: Profile = {
  name: 'full',
  rate: 60,
  beforeSeconds: 5,
  afterSeconds: 8,
  blockQuota: 150,
  slowloris: 300,
  idleSockets: 2000,
  faultSeconds: 5,
};

const QUICK: Profile = {
  name: 'quick',
  rate: 30,
  beforeSeconds: 3,
  afterSeconds: 4,
  blockQuota: 60,
  slowloris: 200,
  idleSockets: 1000,
  faultSeconds: 3,
};

const SCENARIOS: Scenario[] = [
  natsOutageScenario,
  longNatsOutageScenario,
  proxyCrashScenario,
  rollingRestartScenario,
  databaseOutageScenario,
  platformFaultsScenario,
  slowClientsScenario,
];

function parseArgs(argv: string[]): { profile: Profile; only: string[] | undefined } {
  let profile = FULL;
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') profile = QUICK;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      only = (arg.startsWith('--only=') ? arg.slice(7) : (argv[++i] ?? '')).split(',').filter(Boolean);
      const unknown = only.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id));
      if (only.length === 0 || unknown.length > 0)
        throw new Error(`--only takes scenario ids (1, 1b, 2-6), got ${only}`);
    } else if (arg === '--help' || arg === '-h') {
      console.log('usage: npm run chaos -- [--quick] [--only 1,2,...]  (docs/chaos.md)');
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  return { profile, only };
}

async function main(): Promise<number> {
  const { profile, only } = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const t0 = Date.now();
  const log = (message: string) => console.log(`[chaos +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const reportsDir = join(repoRoot(), 'reports');
  mkdirSync(reportsDir, { recursive: true });
  const workDir = mkdtempSync(join(tmpdir(), 'gateway-chaos-'));
  let cluster: ChaosCluster | undefined;
  let interrupted = false;
  const cleanUp = async () => {
    await cluster?.stop().catch((error: unknown) => log(`stopping the cluster failed: ${String(error)}`));
    rmSync(workDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping everything the chaos run started`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const report: ChaosReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: '',
    profile,
    machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`,
    results: [],
    skipped: [],
  };
  try {
    log(`profile ${profile.name}; work dir ${workDir}`);
    cluster = await ChaosCluster.start({ workDir, blockQuota: profile.blockQuota, log });
    log('cluster is up');
    for (const scenario of SCENARIOS) {
      if (only && !only.includes(scenario.id)) continue;
      log(`scenario ${scenario.id}. ${scenario.name}`);
      let result: ScenarioResult;
      try {
        result = await scenario.run({ cluster, profile, log });
      } catch (error) {
        if (error instanceof ScenarioSkipped) {
          report.skipped.push({ id: scenario.id, name: scenario.name, reason: error.message });
          log(`SKIPPED ${scenario.id}. ${scenario.name}: ${error.message}`);
          continue;
        }
        result = failedResult(scenario, error);
      }
      report.results.push(result);
      console.log(resultLine(result));
    }
  } finally {
    report.finishedAt = new Date().toISOString();
    // The services' logs are kept when a target is not met.
    const failed = report.results.some((result) => !result.met);
    if (failed && cluster) {
      const kept = join(reportsDir, `chaos-${stamp}-logs`);
      mkdirSync(kept, { recursive: true });
      try {
        cpSync(join(workDir, 'logs'), kept, { recursive: true });
      } catch {
        // nothing to keep
      }
      log(`service logs kept in ${kept}`);
    }
    if (!interrupted) await cleanUp();
  }
  const path = join(reportsDir, `chaos-${stamp}.md`);
  writeFileSync(path, renderMarkdown(report));
  log(`report: ${path}`);
  const notMet = report.results.filter((result) => !result.met);
  if (notMet.length > 0) log(`targets not met: ${notMet.map((result) => `${result.id}. ${result.name}`).join('; ')}`);
  return notMet.length > 0 ? 1 : 0;
}

function failedResult(scenario: Scenario, error: unknown): ScenarioResult {
  return {
    id: scenario.id,
    name: scenario.name,
    action: 'the scenario itself failed',
    load: '-',
    during: {},
    after: {},
    recoveryMs: null,
    usageLost: '-',
    overAdmission: '-',
    crashes: '-',
    target: '-',
    met: false,
    notes: [`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
  };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[chaos] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
