import { sleep } from '../load/load-driver';
import {
  crashesSince,
  isExpected,
  ledgerCheck,
  loadText,
  percentile,
  rateLimitedNote,
  recoveryMs,
  split,
  tally,
  underLoad,
  type Scenario,
} from './scenario';

/** edge-auth's and mcp-server's DECISION_BUDGET_MS (default 4 s) plus one second of slack on 2 busy cores. */
const ANSWER_DEADLINE_MS = 5_000;
const RESUME_TARGET_MS = 5_000;

/**
 * kill -9 of nats-server for `outageMs`, then the same server again (same port, same JetStream store). Edges must
 * answer fast with 503 service_unavailable problem+json and Retry-After, block keys are never over-admitted, and
 * decisions resume within 5 s of NATS' return with no service restarted.
 */
function natsOutage(id: string, outageMs: number): Scenario {
  return {
    id,
    name: `NATS kill -9 (${outageMs / 1000} s)`,
    async run(context) {
      const { cluster, profile, log } = context;
      const keys = await cluster.keys(`s${id}`, 3);
      const exitsBefore = cluster.exitCounts();
      const { outcomes, marks, durationMs } = await underLoad(context, keys, 120_000, async (elapsed) => {
        await sleep(profile.beforeSeconds * 1000);
        const faultStart = elapsed();
        log(`s${id}: kill -9 nats-server (pid ${cluster.nats.pid})`);
        await cluster.nats.kill9();
        await sleep(outageMs);
        await cluster.nats.start();
        const faultEnd = elapsed();
        log(`s${id}: nats-server is back (pid ${cluster.nats.pid}) after ${faultEnd - faultStart} ms`);
        return { faultStart, faultEnd };
      });
      const { during, after } = split(outcomes, marks);
      const unexpected = during.filter((outcome) => !isExpected(outcome));
      // REST and MCP alike refuse before deciding with 503 problem+json (docs/rest.md, docs/mcp.md); a tools/call
      // that was admitted and then lost its decision would be a tool error.
      const documented = (outcome: (typeof during)[number]) =>
        (outcome.status === 503 &&
          outcome.code === 'service_unavailable' &&
          outcome.problemJson &&
          outcome.retryAfter) ||
        (outcome.channel === 'mcp' && outcome.status === 200 && outcome.code === 'tool:service_unavailable');
      const undocumented = unexpected.filter((outcome) => !documented(outcome));
      const slow = during.filter((outcome) => outcome.latencyMs > ANSWER_DEADLINE_MS);
      const p99 = percentile(
        unexpected.map((outcome) => outcome.latencyMs),
        99,
      );
      const recovery = recoveryMs(outcomes, marks.faultEnd);
      const ledger = await ledgerCheck(context, keys, outcomes);
      const crashes = crashesSince(context, exitsBefore);
      const met =
        undocumented.length === 0 &&
        slow.length === 0 &&
        ledger.overAdmitted === 0 &&
        ledger.ledgerOverQuota === 0 &&
        recovery !== null &&
        recovery <= RESUME_TARGET_MS &&
        crashes.total === 0;
      return {
        id: this.id,
        name: this.name,
        action: `kill -9 nats-server, ${outageMs / 1000} s down, restarted on the same port and store`,
        load: loadText(profile, durationMs),
        during: tally(during),
        after: tally(after),
        recoveryMs: recovery,
        usageLost: `${ledger.lost} (metered)`,
        overAdmission: `${ledger.overAdmitted} answers, ledger +${ledger.ledgerOverQuota}`,
        crashes: crashes.text,
        target: `outage answers 503 + problem+json + Retry-After within ${ANSWER_DEADLINE_MS / 1000} s; no over-admission; resume <= ${RESUME_TARGET_MS / 1000} s; no restart`,
        met,
        notes: [
          rateLimitedNote(outcomes),
          `refusals during the outage: p99 ${p99} ms (REST ${percentile(
            unexpected.filter((outcome) => outcome.channel === 'rest').map((outcome) => outcome.latencyMs),
            99,
          )} ms, MCP ${percentile(
            unexpected.filter((outcome) => outcome.channel === 'mcp').map((outcome) => outcome.latencyMs),
            99,
          )} ms); ${slow.length} answers slower than ${ANSWER_DEADLINE_MS} ms; ` +
            `${undocumented.length} not the documented 503 (${JSON.stringify(tally(undocumented))})`,
          ...ledger.lines,
        ],
      };
    },
  };
}

/** 1. The outage: five seconds. */
export const natsOutageScenario = natsOutage('1', 5_000);

/**
 * 1b. Longer than the NATS client's default reconnect budget (10 attempts, 2 s apart, then it gives up for good):
 * services reconnect for as long as they live, so decisions resume without a restart.
 */
export const longNatsOutageScenario = natsOutage('1b', 30_000);
