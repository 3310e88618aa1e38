import { EarliestDeadline, expireDueIn } from './earliest-deadline';
import { IdTable } from './id-table';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done` holds, for at most 5 s: a loaded machine may fire timers late, never early. */
async function until(done: () => boolean): Promise<void> {
  for (const giveUpAt = Date.now() + 5_000; !done() && Date.now() < giveUpAt;) await sleep(10);
}

/** A table of deadlines as an owner keeps it: what is due is failed (recorded) and leaves the table. */
function table() {
  const waiting = new Map<string, number>();
  const failed: { name: string; lateMs: number }[] = [];
  const deadlines = new EarliestDeadline((nowMs) => {
    let next = Infinity;
    for (const [name, atMs] of waiting) {
      if (atMs <= nowMs) {
        waiting.delete(name);
        failed.push({ name, lateMs: nowMs - atMs });
      } else next = Math.min(next, atMs);
    }
    return next;
  });
  const add = (name: string, inMs: number) => {
    const atMs = Date.now() + inMs;
    waiting.set(name, atMs);
    deadlines.add(atMs);
  };
  return { waiting, failed, deadlines, add };
}

describe('EarliestDeadline', () => {
  it('fails each entry at its own deadline, one added later with an earlier deadline first', async () => {
    const { failed, add } = table();
    add('late', 120);
    add('early', 30);
    add('middle', 70);
    await until(() => failed.length === 3);
    expect(failed.map((entry) => entry.name)).toEqual(['early', 'middle', 'late']);
    for (const entry of failed) expect(entry.lateMs).toBeGreaterThanOrEqual(0);
  });

  it('leaves an entry that ended before its deadline alone, and the others still fail on time', async () => {
    const { waiting, failed, add } = table();
    add('answered', 20);
    add('unanswered', 60);
    waiting.delete('answered');
    await until(() => failed.length > 0);
    await sleep(30);
    expect(failed.map((entry) => entry.name)).toEqual(['unanswered']);
  });

  it('fires nothing once stopped', async () => {
    const { failed, deadlines, add } = table();
    add('pending', 20);
    deadlines.stop();
    await sleep(60);
    expect(failed).toEqual([]);
  });
});

describe('expireDueIn', () => {
  const tableOf = (deadlines: Record<string, number>) => {
    const entries = new IdTable<{ deadline: number }>();
    for (const [id, deadline] of Object.entries(deadlines)) entries.set(id, { deadline });
    return entries;
  };

  it('hands each entry due at or before now to expire and returns the earliest deadline left', () => {
    const entries = tableOf({ '0': 100, '1': 250, '2': 90, '3': 400, '4': 300 });
    const expired: string[] = [];
    const next = expireDueIn(entries, 100, (id) => {
      expired.push(id);
      entries.delete(id);
    });
    expect(expired.sort()).toEqual(['0', '2']);
    expect(next).toBe(250);
    expect(entries.ids().sort()).toEqual(['1', '3', '4']);
  });

  it('skips an entry that an earlier expiry ended, and says Infinity once nothing is left', () => {
    const entries = tableOf({ '0': 10, '1': 20, '2': 500 });
    const expired: string[] = [];
    const next = expireDueIn(entries, 50, (id) => {
      expired.push(id);
      // Expiring one request may end others (a stream that breaks fails every request on it).
      entries.delete('0');
      entries.delete('1');
      entries.delete('2');
    });
    expect(expired).toEqual(['0']);
    expect(next).toBe(Infinity);
  });
});
