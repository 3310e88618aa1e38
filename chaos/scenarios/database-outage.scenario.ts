import { sleep } from '../load/load-driver';
import {
  badSummary,
  crashesSince,
  isExpected,
  ledgerCheck,
  loadText,
  rateLimitedNote,
  recoveryMs,
  split,
  tally,
  underLoad,
  type Scenario,
} from './scenario';

const OUTAGE_MS = 10_000;
/** A block-mode refusal for want of the ledger comes within the actor's bounded wait, far from the 4 s budget. */
const LEDGER_REFUSAL_MAX_MS = 1_000;

/**
 * 4. FerretDB stopped (SIGSTOP) for 10 s, then continued (SIGCONT): keys already in memory keep deciding, and
 * afterwards the ledger holds every admitted request of the metered keys and never more than the quota of the block
 * keys. Metered keys are admitted throughout. A block-mode key admits while the reservation in hand lasts (topped up to a
 * chunk ahead of need), then gets the documented fast refusal, 503 service_unavailable with Retry-After, until
 * the database answers again: block mode refuses what it cannot count (docs/rest.md, "Limits").
 */
export const databaseOutageScenario: Scenario = {
  id: '4',
  name: 'FerretDB stopped 10 s',
  async run(context) {
    const { cluster, profile, log } = context;
    const keys = await cluster.keys('s4', 3);
    const exitsBefore = cluster.exitCounts();
    const { outcomes, marks, durationMs } = await underLoad(context, keys, 120_000, async (elapsed) => {
      // The keys are in their actors' memory (and the connections in provider-proxy's cache) before the stop.
      await sleep(profile.beforeSeconds * 1000);
      const faultStart = elapsed();
      log(`s4: SIGSTOP FerretDB (pid ${cluster.ferretdb.pid}) for ${OUTAGE_MS / 1000} s`);
      cluster.ferretdb.pause();
      await sleep(OUTAGE_MS);
      cluster.ferretdb.resume();
      log('s4: SIGCONT FerretDB');
      return { faultStart, faultEnd: elapsed() };
    });
    const { during, after } = split(outcomes, marks);
    const modeOf = new Map(keys.map((key) => [key.label, key.mode]));
    const ledgerRefusal = (outcome: (typeof during)[number]) =>
      modeOf.get(outcome.key) === 'block' &&
      (outcome.code === 'tool:service_unavailable' ||
        (outcome.status === 503 && outcome.code === 'service_unavailable' && outcome.retryAfter));
    const refusedFast = during.filter(ledgerRefusal);
    const slowest = Math.max(0, ...refusedFast.map((outcome) => outcome.latencyMs));
    const badDuring = during.filter((outcome) => !isExpected(outcome) && !ledgerRefusal(outcome));
    const ledger = await ledgerCheck(context, keys, outcomes);
    const crashes = crashesSince(context, exitsBefore);
    const recovery = recoveryMs(outcomes, marks.faultEnd);
    const met =
      badDuring.length === 0 &&
      slowest <= LEDGER_REFUSAL_MAX_MS &&
      ledger.lost === 0 &&
      ledger.overAdmitted === 0 &&
      ledger.ledgerOverQuota === 0 &&
      crashes.total === 0;
    return {
      id: this.id,
      name: this.name,
      action: `SIGSTOP FerretDB for ${OUTAGE_MS / 1000} s, then SIGCONT (same process, same data)`,
      load: loadText(profile, durationMs),
      during: tally(during),
      after: tally(after),
      recoveryMs: recovery,
      usageLost: `${ledger.lost} (metered)`,
      overAdmission: `${ledger.overAdmitted} answers, ledger +${ledger.ledgerOverQuota}`,
      crashes: crashes.text,
      target:
        'known keys keep deciding during the stop: metered 2xx; block 2xx/429 while reserved, then 503 with ' +
        `Retry-After within ${LEDGER_REFUSAL_MAX_MS} ms; ledger = admitted (metered), <= quota (block)`,
      met,
      notes: [
        rateLimitedNote(outcomes),
        `block-mode 503s while the ledger was stopped: ${refusedFast.length}, slowest ${slowest} ms`,
        `other answers than 2xx/429 and those during the stop: ${badDuring.length}`,
        badSummary(outcomes, keys, marks.faultStart),
        ...ledger.lines,
      ],
    };
  },
};
