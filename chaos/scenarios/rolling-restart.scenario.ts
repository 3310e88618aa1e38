import { sleep } from '../load/load-driver';
import {
  badSummary,
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

/** The gateway's own services, restarted in this order (the sandbox stands in for the platforms and stays). */
const ORDER = [
  'edge-auth-1',
  'edge-auth-2',
  'quota-actor-1',
  'quota-actor-2',
  'provider-proxy-1',
  'provider-proxy-2',
  'mcp-server-1',
];

/**
 * 3. SIGTERM each service in turn under load, waiting for the supervisor to bring it back before the next: zero
 * answers other than 2xx and the load's own 429s. A refused connection (a stopped edge's port) moves to the other
 * edge as a load balancer would; the single mcp-server's clients wait for it (both are counted in the notes).
 */
export const rollingRestartScenario: Scenario = {
  id: '3',
  name: 'rolling restart (SIGTERM)',
  async run(context) {
    const { cluster, profile, log } = context;
    const keys = await cluster.keys('s3', 3);
    const exitsBefore = cluster.exitCounts();
    const restartTimes: string[] = [];
    /** When each SIGTERM went out, ms after the first one (to place unexpected answers). */
    const restartMarks: string[] = [];
    const { outcomes, marks, durationMs } = await underLoad(context, keys, 240_000, async (elapsed) => {
      await sleep(profile.beforeSeconds * 1000);
      const faultStart = elapsed();
      for (const label of ORDER) {
        const supervised = cluster.member(label).supervised;
        const restarts = supervised.restarts;
        const began = Date.now();
        restartMarks.push(`SIGTERM ${label} at +${elapsed() - faultStart} ms`);
        log(`s3: SIGTERM ${label} (pid ${supervised.current!.process.pid})`);
        supervised.current!.process.kill('SIGTERM');
        try {
          await supervised.nextStart(restarts, 60_000);
          restartTimes.push(`${label} ${((Date.now() - began) / 1000).toFixed(1)} s`);
        } catch (error) {
          restartTimes.push(`${label} not back (${error instanceof Error ? error.message : String(error)})`);
        }
        // A new actor takes partitions over within a lease period or two; let it settle before the next one.
        await sleep(1_000);
      }
      return { faultStart, faultEnd: elapsed() };
    });
    const bad = outcomes.filter((outcome) => !isExpected(outcome));
    const during = outcomes.filter((outcome) => outcome.sentAt >= marks.faultStart && outcome.sentAt < marks.faultEnd);
    const after = outcomes.filter((outcome) => outcome.sentAt >= marks.faultEnd);
    const refused = outcomes.reduce((sum, outcome) => sum + outcome.refused, 0);
    const resent = outcomes.filter((outcome) => outcome.resent).length;
    const ledger = await ledgerCheck(context, keys, outcomes);
    const deliberate = Object.fromEntries(ORDER.map((label) => [label, 1]));
    const crashes = crashesSince(context, exitsBefore, deliberate);
    const met = bad.length === 0 && ledger.overAdmitted === 0 && ledger.lost === 0 && crashes.total === 0;
    return {
      id: this.id,
      name: this.name,
      action: `SIGTERM one at a time: ${ORDER.join(', ')}; each back before the next`,
      load: loadText(profile, durationMs),
      during: tally(during),
      after: tally(after),
      recoveryMs: recoveryMs(outcomes, marks.faultEnd),
      usageLost: `${ledger.lost} (metered)`,
      overAdmission: `${ledger.overAdmitted} answers, ledger +${ledger.ledgerOverQuota}`,
      crashes: crashes.text,
      target: "zero answers other than 2xx and the load's own 429s; nothing lost or over-admitted",
      met,
      notes: [
        rateLimitedNote(outcomes),
        `back after SIGTERM: ${restartTimes.join('; ')}`,
        `connections refused (moved to the other edge, or waited for mcp-server): ${refused}; ` +
          `requests sent again after a reset of a reused keep-alive socket: ${resent}`,
        `other answers: ${bad.length} ${JSON.stringify(tally(bad))}`,
        badSummary(outcomes, keys, marks.faultStart),
        restartMarks.join('; '),
        ...ledger.lines,
      ],
    };
  },
};
