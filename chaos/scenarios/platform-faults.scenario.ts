import { CHAOS_UPSTREAM_TIMEOUT_MS } from '../cluster/chaos-cluster';
import { LoadDriver, sleep, type LoadKey, type Outcome } from '../load/load-driver';
import {
  crashesSince,
  MCP_ARGUMENTS,
  percentile,
  REST_PATH,
  ScenarioSkipped,
  type Scenario,
  type ScenarioContext,
} from './scenario';

/** An answer may take the platform deadline, the gRPC hop's extra second and one more on 2 busy cores. */
const ANSWER_DEADLINE_MS = CHAOS_UPSTREAM_TIMEOUT_MS + 2_000;
const RSS_BOUND_MIB = 512;

interface FaultRun {
  kind: string;
  body: Record<string, unknown>;
}

const FAULTS: FaultRun[] = [
  { kind: 'latency', body: { kind: 'latency', latency_ms: 1_000 } },
  { kind: 'hang', body: { kind: 'hang' } },
  { kind: 'status_500', body: { kind: 'status_500' } },
  { kind: 'rate_limit', body: { kind: 'rate_limit' } },
  { kind: 'malformed', body: { kind: 'malformed' } },
  { kind: 'truncated', body: { kind: 'truncated' } },
  { kind: 'reset', body: { kind: 'reset' } },
  // 10 answers of 48 MiB, above provider-proxy's UPSTREAM_MAX_ANSWER_BYTES (32 MiB): is memory bounded?
  { kind: 'huge', body: { kind: 'huge', size_bytes: 48 * 1024 * 1024, count: 10 } },
];

/** Codes of the gateway for a platform that fails (docs/rest.md "Errors", docs/mcp.md). */
const PLATFORM_CODES = [
  'platform_unreachable',
  'platform_connection_lost',
  'platform_answer_too_large',
  'platform_timeout',
  'platform_busy',
  'service_unavailable',
];

/**
 * What the gateway may answer to a failing platform: the platform's answer (2xx, or its own status and envelope
 * passed through, spec 7: not problem+json), or a documented platform code; never its own 500 or no answer.
 */
function acceptable(outcome: Outcome): boolean {
  if (outcome.status === 0) return false;
  if (outcome.channel === 'rest') {
    if (!outcome.problemJson) return outcome.status !== 500 || outcome.code !== 'internal_error';
    return PLATFORM_CODES.includes(outcome.code) || outcome.code === 'quota_exceeded';
  }
  if (outcome.status !== 200) return outcome.problemJson && PLATFORM_CODES.includes(outcome.code);
  return (
    outcome.code === 'ok' ||
    outcome.code === 'tool:platform_error' ||
    PLATFORM_CODES.some((code) => outcome.code === `tool:${code}`)
  );
}

/** The gateway's own 500: problem+json internal_error, or an MCP exchange that broke. */
function isGateway500(outcome: Outcome): boolean {
  return outcome.status === 500 && (outcome.problemJson || outcome.channel === 'mcp');
}

async function sandboxFaults(context: ScenarioContext, method: 'POST' | 'DELETE', body?: unknown) {
  return fetch(`${context.cluster.sandboxUrl}/_sandbox/faults`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/**
 * 5. Each fault kind of the sandbox's fault API on video-ads in turn, under load over REST and MCP: documented codes
 * within the deadlines, never a gateway 500, provider-proxy's resident memory bounded.
 */
export const platformFaultsScenario: Scenario = {
  id: '5',
  name: 'platform faults',
  async run(context) {
    const { cluster, profile, log } = context;
    const probe = await sandboxFaults(context, 'DELETE').catch(() => undefined);
    if (!probe || probe.status === 404) {
      throw new ScenarioSkipped('the sandbox has no fault API (POST/DELETE /_sandbox/faults)');
    }
    const keys = (await cluster.keys('s5', 2)).filter((key) => key.mode === 'metered');
    const loadKeys: LoadKey[] = keys.map((key, index) => ({
      label: key.label,
      secret: key.secret,
      channel: index === 0 ? 'rest' : 'mcp',
    }));
    const proxies = cluster.byService('provider-proxy').map((member) => member.label);
    const rssOf = () => Math.max(...proxies.map((label) => cluster.rssMiB(label) ?? 0));
    const baselineRss = rssOf();
    let maxRss = baselineRss;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssOf())), 200);
    const exitsBefore = cluster.exitCounts();
    const during: Record<string, number> = {};
    const notes: string[] = [];
    let unacceptable = 0;
    let gateway500 = 0;
    let slow = 0;
    let totalSeconds = 0;
    try {
      for (const fault of FAULTS) {
        const created = await sandboxFaults(context, 'POST', { ...fault.body, module: 'video-ads' });
        if (created.status !== 201) {
          notes.push(`${fault.kind}: the sandbox refused the fault (${created.status} ${await created.text()})`);
          unacceptable++;
          continue;
        }
        const driver = new LoadDriver({
          restOrigins: cluster.restOrigins,
          mcpUrl: cluster.mcpUrl,
          keys: loadKeys,
          rate: Math.max(4, Math.round(profile.rate / 2)),
          durationMs: profile.faultSeconds * 1000,
          deadlineMs: 15_000,
          restPath: REST_PATH,
          mcpArguments: MCP_ARGUMENTS,
        });
        const started = Date.now();
        const { outcomes } = await driver.run();
        driver.close();
        totalSeconds += (Date.now() - started) / 1000;
        await sandboxFaults(context, 'DELETE');
        const byCode: Record<string, number> = {};
        for (const outcome of outcomes) {
          const name = `${fault.kind}: ${outcome.status === 0 ? outcome.code : `${outcome.status} ${outcome.code}`}`;
          byCode[name] = (byCode[name] ?? 0) + 1;
          during[name] = (during[name] ?? 0) + 1;
        }
        const bad = outcomes.filter((outcome) => !acceptable(outcome));
        const late = outcomes.filter((outcome) => outcome.latencyMs > ANSWER_DEADLINE_MS);
        unacceptable += bad.length;
        slow += late.length;
        gateway500 += outcomes.filter(isGateway500).length;
        notes.push(
          `${fault.kind}: ${JSON.stringify(byCode)}; p99 ${percentile(
            outcomes.map((outcome) => outcome.latencyMs),
            99,
          )} ms; undocumented ${bad.length}; over ${ANSWER_DEADLINE_MS} ms ${late.length}; ` +
            `provider-proxy RSS now ${rssOf()} MiB`,
        );
        log(`s5: ${fault.kind} done (${outcomes.length} requests, ${bad.length} undocumented, ${late.length} late)`);
        await sleep(300);
      }
    } finally {
      clearInterval(sampler);
      await sandboxFaults(context, 'DELETE').catch(() => undefined);
    }
    // Answers after the faults were cleared: the platform is healthy again.
    const check = new LoadDriver({
      restOrigins: cluster.restOrigins,
      mcpUrl: cluster.mcpUrl,
      keys: loadKeys,
      rate: Math.max(4, Math.round(profile.rate / 2)),
      durationMs: 2_000,
      deadlineMs: 15_000,
      restPath: REST_PATH,
      mcpArguments: MCP_ARGUMENTS,
    });
    const { outcomes: afterOutcomes } = await check.run();
    check.close();
    const after: Record<string, number> = {};
    for (const outcome of afterOutcomes) {
      const name = outcome.status === 0 ? outcome.code : `${outcome.status} ${outcome.code}`;
      after[name] = (after[name] ?? 0) + 1;
    }
    const afterBad = afterOutcomes.filter((outcome) => outcome.code !== 'ok').length;
    const crashes = crashesSince(context, exitsBefore);
    const met =
      unacceptable === 0 &&
      gateway500 === 0 &&
      slow === 0 &&
      maxRss <= RSS_BOUND_MIB &&
      afterBad === 0 &&
      crashes.total === 0;
    notes.unshift(
      `provider-proxy RSS: ${baselineRss} MiB before, max ${maxRss} MiB during (bound ${RSS_BOUND_MIB} MiB); ` +
        `gateway 500s: ${gateway500}; UPSTREAM_TIMEOUT_MS=${CHAOS_UPSTREAM_TIMEOUT_MS} in this cluster`,
    );
    return {
      id: this.id,
      name: this.name,
      action: `sandbox faults on video-ads, ${profile.faultSeconds} s each: ${FAULTS.map((fault) => fault.kind).join(', ')}`,
      load: `${Math.max(4, Math.round(profile.rate / 2))}/s for ${Math.round(totalSeconds)} s (REST + MCP)`,
      during,
      after,
      recoveryMs: afterBad === 0 ? 0 : null,
      usageLost: '-',
      overAdmission: '-',
      crashes: crashes.text,
      target: `documented codes only, within ${ANSWER_DEADLINE_MS / 1000} s; no gateway 500; provider-proxy RSS <= ${RSS_BOUND_MIB} MiB`,
      met,
      notes,
    };
  },
};
