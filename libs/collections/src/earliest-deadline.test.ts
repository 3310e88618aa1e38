import { EarliestDeadline } from './earliest-deadline';

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
