import type { ChaosCluster, ChaosKey } from '../cluster/chaos-cluster';
import { LoadDriver, type LoadKey, type Outcome } from '../load/load-driver';

/** How hard and how long each scenario pushes (`--quick` is the CI profile). */
export interface Profile {
  name: 'full' | 'quick';
  /** Requests per second of the load in every scenario, over all its keys. */
  rate: number;
  /** Seconds of load before a fault, and after it ends. */
  beforeSeconds: number;
  afterSeconds: number;
  /** Monthly quota of the block-mode keys. */
  blockQuota: number;
  /** Scenario 6: slowloris connections and idle keep-alive sockets per target service. */
  slowloris: number;
  idleSockets: number;
  /** Scenario 5: seconds per fault kind. */
  faultSeconds: number;
}

export interface ScenarioResult {
  id: string;
  name: string;
  /** What was done, in a few words. */
  action: string;
  /** rate and duration of the load. */
  load: string;
  /** Answers by "status code" while the fault lasted, and after it. */
  during: Record<string, number>;
  after: Record<string, number>;
  /** From the end of the fault until answers are good for the rest of the run; null when they never were. */
  recoveryMs: number | null;
  usageLost: string;
  overAdmission: string;
  crashes: string;
  target: string;
  met: boolean;
  /** Figures and reasons behind `met`, for the report's notes. */
  notes: string[];
}

export interface ScenarioContext {
  cluster: ChaosCluster;
  profile: Profile;
  log: (message: string) => void;
}

export interface Scenario {
  id: string;
  name: string;
  run(context: ScenarioContext): Promise<ScenarioResult>;
}

/** Thrown by a scenario that cannot run here (e.g. the sandbox has no fault API yet); the report lists it. */
export class ScenarioSkipped extends Error {}

export const REST_PATH = '/v1/video-ads/v1.3/oauth2/advertiser/get/';
export const MCP_ARGUMENTS = { provider: 'video-ads', path: '/v1.3/oauth2/advertiser/get/' };

/** Keys spread over REST (two of three) and MCP (one of three), block and metered alike. */
export function loadKeys(keys: ChaosKey[]): LoadKey[] {
  return keys.map((key, index) => ({
    label: key.label,
    secret: key.secret,
    channel: index % 3 === 2 ? 'mcp' : 'rest',
  }));
}

export interface Marks {
  /** ms since the load's start. */
  faultStart: number;
  faultEnd: number;
}

/**
 * Runs the load and `fault` beside it; `fault` gets a clock (ms since the load's start) and returns when the fault
 * started and ended. The load goes on for the profile's afterSeconds once `fault` returned, within `maxDurationMs`.
 */
export async function underLoad(
  context: ScenarioContext,
  keys: ChaosKey[],
  maxDurationMs: number,
  fault: (elapsed: () => number) => Promise<Marks>,
): Promise<{ outcomes: Outcome[]; marks: Marks; durationMs: number }> {
  const { cluster, profile } = context;
  const driver = new LoadDriver({
    restOrigins: cluster.restOrigins,
    mcpUrl: cluster.mcpUrl,
    keys: loadKeys(keys),
    rate: profile.rate,
    durationMs: maxDurationMs,
    deadlineMs: 15_000,
    restPath: REST_PATH,
    mcpArguments: MCP_ARGUMENTS,
  });
  try {
    const running = driver.run();
    const elapsed = () => Date.now() - driver.startedAt;
    let marks: Marks;
    try {
      marks = await fault(elapsed);
    } catch (error) {
      driver.stop();
      await running;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, profile.afterSeconds * 1000));
    driver.stop();
    const durationMs = elapsed();
    const { outcomes } = await running;
    return { outcomes, marks, durationMs };
  } finally {
    driver.close();
  }
}

export function label(outcome: Outcome): string {
  return outcome.status === 0 ? outcome.code : `${outcome.status} ${outcome.code}`;
}

export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[label(outcome)] = (counts[label(outcome)] ?? 0) + 1;
  return counts;
}

/**
 * Answers the load asks for whatever happens: 2xx, and its own 429s: the block customer's quota_exceeded, and
 * rate_limited when requests that waited for a restarting server arrive at once (counted in the notes, see
 * rateLimitedNote). Over MCP both are tool errors.
 */
export function isExpected(outcome: Outcome): boolean {
  if (outcome.status >= 200 && outcome.status < 300 && outcome.code === 'ok') return true;
  if (outcome.status === 429 && (outcome.code === 'quota_exceeded' || outcome.code === 'rate_limited')) return true;
  return (
    outcome.channel === 'mcp' &&
    outcome.status === 200 &&
    (outcome.code === 'tool:quota_exceeded' || outcome.code === 'tool:rate_limited')
  );
}

/** The rate limit answers of a run: expected only where requests piled up (each key's load is far below its rate). */
export function rateLimitedNote(outcomes: Outcome[]): string {
  const limited = outcomes.filter((outcome) => outcome.code === 'rate_limited' || outcome.code === 'tool:rate_limited');
  if (limited.length === 0) return 'rate_limited answers: 0';
  const times = limited.map((outcome) => outcome.sentAt);
  return (
    `rate_limited answers: ${limited.length} (${JSON.stringify(tally(limited))}), sent at ` +
    `${Math.min(...times)}..${Math.max(...times)} ms of the run, latency max ${percentile(
      limited.map((outcome) => outcome.latencyMs),
      100,
    )} ms (requests that waited for a restarting server arrive together)`
  );
}

export function isAdmitted(outcome: Outcome): boolean {
  return outcome.code === 'ok' && outcome.status >= 200 && outcome.status < 300;
}

/**
 * When answers were good again: from `since`, the first send time after which every request got an expected
 * answer until the end of the run, minus `since`. 0 when nothing went wrong after `since`, null when the last
 * request still failed.
 */
export function recoveryMs(outcomes: Outcome[], since: number): number | null {
  const after = outcomes.filter((outcome) => outcome.sentAt >= since).sort((a, b) => a.sentAt - b.sentAt);
  let lastBad = -1;
  after.forEach((outcome, index) => {
    if (!isExpected(outcome)) lastBad = index;
  });
  if (lastBad === -1) return 0;
  if (lastBad === after.length - 1) return null;
  return after[lastBad + 1]!.sentAt - since;
}

export function split(outcomes: Outcome[], marks: Marks) {
  return {
    before: outcomes.filter((outcome) => outcome.sentAt < marks.faultStart),
    during: outcomes.filter((outcome) => outcome.sentAt >= marks.faultStart && outcome.sentAt < marks.faultEnd),
    after: outcomes.filter((outcome) => outcome.sentAt >= marks.faultEnd),
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * The ledger against what the load saw, once the actors flushed: metered keys must count every admitted answer
 * (nothing lost); the block customer (all the block keys of a scenario) is never admitted beyond its quota, and its
 * ledger never holds more than the quota.
 */
export async function ledgerCheck(
  context: ScenarioContext,
  keys: ChaosKey[],
  outcomes: Outcome[],
): Promise<{ lost: number; overAdmitted: number; ledgerOverQuota: number; lines: string[] }> {
  // The actors write usage every USAGE_FLUSH_MS (5 s by default); wait for one flush and some.
  await new Promise((resolve) => setTimeout(resolve, 6_500));
  const quota = context.profile.blockQuota;
  let lost = 0;
  let blockAdmitted = 0;
  let blockUsed = 0;
  const lines: string[] = [];
  for (const key of keys) {
    const admitted = outcomes.filter((outcome) => outcome.key === key.label && isAdmitted(outcome)).length;
    const used = await context.cluster.ledgerUsed(key.keyId);
    if (key.mode === 'metered') lost += Math.max(0, admitted - used);
    else {
      blockAdmitted += admitted;
      blockUsed += used;
    }
    lines.push(`${key.label}: admitted ${admitted}, ledger ${used}`);
  }
  lines.push(`block customer: admitted ${blockAdmitted}, ledger ${blockUsed}, quota ${quota}`);
  return {
    lost,
    overAdmitted: Math.max(0, blockAdmitted - quota),
    ledgerOverQuota: Math.max(0, blockUsed - quota),
    lines,
  };
}

/** Exits nobody asked for during a scenario, by member, minus the ones the scenario caused on purpose. */
export function crashesSince(
  context: ScenarioContext,
  before: Record<string, number>,
  deliberate: Record<string, number> = {},
): { total: number; text: string } {
  const now = context.cluster.exitCounts();
  const parts: string[] = [];
  let total = 0;
  for (const [member, count] of Object.entries(now)) {
    const extra = count - (before[member] ?? 0) - (deliberate[member] ?? 0);
    if (extra > 0) {
      total += extra;
      parts.push(`${member} x${extra}`);
    }
  }
  return { total, text: total === 0 ? '0' : parts.join(', ') };
}

export function loadText(profile: Profile, durationMs: number): string {
  return `${profile.rate}/s for ${Math.round(durationMs / 1000)} s`;
}

/** Where the unexpected answers fell: how many, when (ms after `since`), on which channel and key mode. */
export function badSummary(outcomes: Outcome[], keys: ChaosKey[], since: number): string {
  const bad = outcomes.filter((outcome) => !isExpected(outcome));
  if (bad.length === 0) return 'no unexpected answers';
  const modeOf = new Map(keys.map((key) => [key.label, key.mode]));
  const by = (pick: (outcome: Outcome) => string) =>
    JSON.stringify(tally(bad.map((o) => ({ ...o, code: pick(o), status: 0 })) as Outcome[]));
  const times = bad.map((outcome) => outcome.sentAt - since);
  return (
    `${bad.length} unexpected answers, sent ${Math.min(...times)}..${Math.max(...times)} ms after the fault began; ` +
    `by channel ${by((o) => o.channel)}; by key mode ${by((o) => modeOf.get(o.key) ?? '?')}; ` +
    `latency p50 ${percentile(
      bad.map((o) => o.latencyMs),
      50,
    )} ms, max ${percentile(
      bad.map((o) => o.latencyMs),
      100,
    )} ms`
  );
}
