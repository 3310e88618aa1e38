import { sleep, type Outcome } from '../load/load-driver';
import {
  crashesSince,
  isExpected,
  ledgerCheck,
  loadText,
  rateLimitedNote,
  recoveryMs,
  tally,
  underLoad,
  type Scenario,
} from './scenario';

const FAILOVER_TARGET_MS = 1_000;

/** The documented answers to a provider-proxy that went away: 503 service_unavailable or 502 platform_unreachable. */
function documented(outcome: Outcome): boolean {
  if (outcome.channel === 'mcp') {
    return outcome.status === 200 && ['tool:service_unavailable', 'tool:platform_unreachable'].includes(outcome.code);
  }
  return (
    outcome.problemJson &&
    ((outcome.status === 503 && outcome.code === 'service_unavailable' && outcome.retryAfter) ||
      (outcome.status === 502 && outcome.code === 'platform_unreachable'))
  );
}

/**
 * 2. kill -9 of the provider-proxy the edges use, under load: requests in flight get a documented 502/503, new ones
 * reach the other proxy within 1 s; the supervisor starts the killed one again.
 */
export const proxyCrashScenario: Scenario = {
  id: '2',
  name: 'provider-proxy kill -9',
  async run(context) {
    const { cluster, profile, log } = context;
    const keys = await cluster.keys('s2', 3);
    const exitsBefore = cluster.exitCounts();
    // pick_first: edges and mcp-server use the first address that answers, provider-proxy-1 unless it was away.
    const victim = cluster.member('provider-proxy-1').supervised;
    const restartsBefore = victim.restarts;
    let restartMs: number | null = null;
    const { outcomes, marks, durationMs } = await underLoad(context, keys, 120_000, async (elapsed) => {
      await sleep(profile.beforeSeconds * 1000);
      const faultStart = elapsed();
      log(`s2: kill -9 provider-proxy-1 (pid ${victim.current!.process.pid})`);
      await victim.current!.kill9();
      try {
        await victim.nextStart(restartsBefore, 60_000);
        restartMs = elapsed() - faultStart;
        log(`s2: the supervisor restarted provider-proxy-1 after ${restartMs} ms`);
      } catch (error) {
        log(`s2: ${error instanceof Error ? error.message : String(error)}`);
      }
      return { faultStart, faultEnd: faultStart + FAILOVER_TARGET_MS };
    });
    const bad = outcomes.filter((outcome) => !isExpected(outcome));
    const undocumented = bad.filter((outcome) => !documented(outcome));
    const late = bad.filter((outcome) => outcome.sentAt >= marks.faultEnd);
    // In flight at the kill: sent up to a second before it (answers take milliseconds here).
    const during = outcomes.filter(
      (outcome) => outcome.sentAt >= marks.faultStart - 1_000 && outcome.sentAt < marks.faultEnd,
    );
    const recovery = recoveryMs(outcomes, marks.faultStart);
    const ledger = await ledgerCheck(context, keys, outcomes);
    const crashes = crashesSince(context, exitsBefore, { 'provider-proxy-1': 1 });
    const met =
      undocumented.length === 0 &&
      late.length === 0 &&
      restartMs !== null &&
      ledger.overAdmitted === 0 &&
      crashes.total === 0;
    return {
      id: this.id,
      name: this.name,
      action: 'kill -9 provider-proxy-1 (the one in use); the supervisor restarts it',
      load: loadText(profile, durationMs),
      during: tally(during),
      after: tally(outcomes.filter((outcome) => outcome.sentAt >= marks.faultEnd)),
      recoveryMs: recovery,
      usageLost: `${ledger.lost} (metered)`,
      overAdmission: `${ledger.overAdmitted} answers, ledger +${ledger.ledgerOverQuota}`,
      crashes: crashes.text,
      target: `in-flight: documented 502/503 only; requests sent >= ${FAILOVER_TARGET_MS} ms after the kill all served; supervisor restart`,
      met,
      notes: [
        rateLimitedNote(outcomes),
        `supervisor restart of provider-proxy-1: ${restartMs === null ? 'none' : `${restartMs} ms after the kill`}`,
        `failed answers: ${bad.length} (${JSON.stringify(tally(bad))}); undocumented ${undocumented.length}; ` +
          `sent >= ${FAILOVER_TARGET_MS} ms after the kill: ${late.length}`,
        ...ledger.lines,
      ],
    };
  },
};
