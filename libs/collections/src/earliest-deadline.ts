import type { IdTable } from './id-table';

/**
 * One timer for a table of deadlines, armed for the earliest and left alone when an entry ends early: an entry costs
 * no timer of its own, and under load the timer fires about once per timeout rather than once per entry. When it
 * fires, `expireDue` (the owner's) fails what is due and returns the earliest deadline still waiting, or Infinity.
 * Unref'd: it never keeps a process alive by itself.
 */
export class EarliestDeadline {
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  constructor(private readonly expireDue: (nowMs: number) => number) {}

  /** A new entry is due at `atMs` (Date.now() time). */
  add(atMs: number): void {
    if (atMs < this.armedAt) this.arm(atMs);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.armedAt = Infinity;
  }

  private arm(atMs: number): void {
    clearTimeout(this.timer);
    this.armedAt = atMs;
    this.timer = setTimeout(() => this.fire(), Math.max(1, atMs - Date.now())).unref();
  }

  private fire(): void {
    this.armedAt = Infinity;
    const next = this.expireDue(Date.now());
    if (next !== Infinity) this.arm(next);
  }
}

/**
 * The owner's scan for an IdTable of entries with a deadline: hands each entry whose deadline passed to `expire`, which
 * removes it, and returns the earliest deadline left, or Infinity.
 */
export function expireDueIn<V extends { deadline: number }>(
  table: IdTable<V>,
  nowMs: number,
  expire: (id: string, entry: V) => void,
): number {
  let next = Infinity;
  for (const id of table.ids()) {
    const entry = table.get(id);
    if (entry === undefined) continue; // an earlier entry's expiry ended it
    if (entry.deadline <= nowMs) expire(id, entry);
    else if (entry.deadline < next) next = entry.deadline;
  }
  return next;
}
