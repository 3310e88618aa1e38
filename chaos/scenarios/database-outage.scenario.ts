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

/**
 * 4. FerretDB stopped (SIGSTOP) for 10 s, then continued (SIGCONT): keys already in memory keep deciding, and
 * afterwards the ledger holds every admitted request of the metered keys and never more than the quota of the block
 * keys.
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
    const badDuring = during.filter((outcome) => !isExpected(outcome));
    const ledger = await ledgerCheck(context, keys, outcomes);
    const crashes = crashesSince(context, exitsBefore);
    const recovery = recoveryMs(outcomes, marks.faultEnd);
    const met =
      badDuring.length === 0 &&
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
        'known keys keep deciding during the stop (only 2xx/429 quota); ledger = admitted (metered), <= quota (block)',
      met,
      notes: [
        rateLimitedNote(outcomes),
        `answers other than 2xx/429 during the stop: ${badDuring.length}`,
        badSummary(outcomes, keys, marks.faultStart),
        ...ledger.lines,
      ],
    };
  },
};
