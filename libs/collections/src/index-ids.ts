/** The largest integer V8 takes as an array index: 2^32 - 2. */
export const LARGEST_INDEX_ID = 2 ** 32 - 2;

/**
 * Ids for an IdTable: decimal integers from 0, which V8 takes as array indices. A key that is not an index is looked
 * up in V8's string table whenever it is a fresh string, as every id read back from the wire is, and added to it when
 * stored; an index key skips the table. In profiles of edge-auth and provider-proxy under load, those lookups of
 * base-36 ids took 2-3 % of the process (docs/benchmarks.md, "Ids that skip the string table"). After the largest
 * index the sequence starts again at 0: an id is in use for seconds, and 2^32 - 1 ids take days to go round.
 */
export class IndexIds {
  private next = 0;

  take(): string {
    const id = String(this.next);
    this.next = this.next === LARGEST_INDEX_ID ? 0 : this.next + 1;
    return id;
  }
}
