import { IdTable } from './id-table';
import { IndexIds, LARGEST_INDEX_ID } from './index-ids';

/** What V8 takes as an array index: the canonical decimal form of an integer from 0 to 2^32 - 2. */
const isArrayIndex = (id: string) => /^(0|[1-9]\d*)$/.test(id) && Number(id) <= LARGEST_INDEX_ID;

describe('index ids', () => {
  it('hands out distinct decimal ids that V8 takes as array indices', () => {
    const ids = new IndexIds();
    const taken = Array.from({ length: 1_000 }, () => ids.take());
    expect(taken.slice(0, 3)).toEqual(['0', '1', '2']);
    expect(new Set(taken).size).toBe(1_000);
    expect(taken.every(isArrayIndex)).toBe(true);
  });

  it('starts again at 0 after the largest array index, never leaving the index range', () => {
    const ids = new IndexIds();
    (ids as unknown as { next: number }).next = LARGEST_INDEX_ID - 1;
    expect([ids.take(), ids.take(), ids.take()]).toEqual([String(LARGEST_INDEX_ID - 1), String(LARGEST_INDEX_ID), '0']);
  });

  it('keys an IdTable: a value is found by a fresh copy of its id, as ids come back from the wire', () => {
    const ids = new IndexIds();
    const table = new IdTable<{ n: number }>();
    const taken = Array.from({ length: 300 }, (_, n) => {
      const id = ids.take();
      table.set(id, { n });
      return id;
    });
    const fresh = (id: string) => Buffer.from(id, 'latin1').toString('latin1');
    for (const [n, id] of taken.entries()) if (n % 2 === 0) expect(table.delete(fresh(id))).toEqual({ n });
    expect(table.size).toBe(150);
    expect(table.get(fresh(taken[1]!))).toEqual({ n: 1 });
    expect(table.get(fresh(taken[0]!))).toBeUndefined();
    expect(table.ids()).toEqual(taken.filter((_, n) => n % 2 === 1));
  });
});
