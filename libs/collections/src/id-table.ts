/**
 * Values by string id, for ids that come and go all the time: the requests in flight on a stream, the replies
 * awaited on an inbox. A `Map` does that job badly in V8 when it lives long: each time its table fills up with
 * deleted entries it is rebuilt, and the obsolete table keeps a link to its successor (for iterators still on it)
 * as well as its own entries. Once one obsolete table is in the old generation, every later table and each value on
 * it (whole request graphs) outlives every scavenge until a full collection: with one other cause, that kept 39 % of
 * edge-auth's young generation alive per scavenge (docs/benchmarks.md, "edge-auth's collector"). A dictionary-mode
 * object has no such link: a table it outgrows is garbage at once. Its ids are best taken from IndexIds, which V8
 * looks up as array indices, without its string table.
 */
export class IdTable<V extends NonNullable<unknown>> {
  private entries: Record<string, V> = Object.create(null) as Record<string, V>;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): V | undefined {
    return this.entries[id];
  }

  has(id: string): boolean {
    return this.entries[id] !== undefined;
  }

  set(id: string, value: V): void {
    if (this.entries[id] === undefined) this.count++;
    this.entries[id] = value;
  }

  /** Removes the id's value and returns it; undefined when there was none. */
  delete(id: string): V | undefined {
    const value = this.entries[id];
    if (value === undefined) return undefined;
    delete this.entries[id];
    this.count--;
    return value;
  }

  /** A copy of the ids: the table may change while they are gone through. */
  ids(): string[] {
    return Object.keys(this.entries);
  }

  /** A copy of the values, for the same reason. */
  values(): V[] {
    return Object.values(this.entries);
  }

  clear(): void {
    this.entries = Object.create(null) as Record<string, V>;
    this.count = 0;
  }
}
