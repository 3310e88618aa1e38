import { monthlyUsageId } from '@gateway/store';
import type { Connection } from 'mongoose';
import { dayOf } from './calendar';
import type { UsageSnapshot } from './usage-counter';

/** The owner lost its partition: a newer owner (higher epoch) has written this key's usage. */
export class FencedError extends Error {
  constructor(keyId: string) {
    super(`usage of ${keyId} is owned by a newer epoch`);
    this.name = 'FencedError';
  }
}

/** The fields of monthly_usage that the ledger writes (the store's MonthlyUsage model declares them all). */
interface LedgerDocument {
  /** monthlyUsageId(key_id, month): every read and write names it (see the store's natural-ids.ts). */
  _id: string;
  key_id: string;
  month: string;
  used: number;
  reserved: number;
  suggestions_used: number;
  /** Units inherited from the key this one replaced (rotation). */
  carried_over?: number;
  days: Record<string, number>;
  /** The lease epoch of the owner that last opened this document; every write is conditional on it. */
  epoch: number;
  created_at: Date;
  updated_at: Date;
}

export interface UsageDelta {
  keyId: string;
  month: string;
  used: number;
  suggestions: number;
  days: Record<string, number>;
  /** After this write the reservation shrinks to what was used (clean handover). */
  releaseTo?: number;
  /**
   * The counts were admitted against a reservation (block mode). A newer owner's open counts such a key's whole
   * reservation as used, so these counts must not land after it; counts without one (metered) only add up.
   */
  againstReservation?: boolean;
}

/**
 * Durable monthly usage with fencing. Every write names the owner's epoch (the revision of its partition lease),
 * so an owner that lost its lease cannot count for a key that a newer owner already opened. Only features that
 * MongoDB 7 and FerretDB 1.24 share: conditional findOneAndUpdate, $inc/$set/$setOnInsert/$max, bulkWrite.
 *
 * Documents are addressed by `_id`. FerretDB runs a filter in SQLite only when it is `_id` alone, so reads and the
 * claim in open() use exactly that; the writes that must be conditional on the epoch (the fence) keep the
 * condition, which MongoDB checks on the `_id` index and FerretDB by reading the collection; flushes on FerretDB
 * rely on the lease while it holds and check the epochs once per batch past it (FenceMode).
 */
export class UsageLedger {
  private epochRead: { wanted: Set<string>; result: Promise<Map<string, number>> } | undefined;
  /** read-then-write (FerretDB) only: the node's writes waiting their turn, one at a time (see `write`). */
  private readonly waitingWrites: Record<WritePriority, WaitingWrite[]> = { decision: [], background: [] };
  private writing = false;
  /** The last write sent was a flush sent ahead of the decisions (see `nextWrite`). */
  private overdueFlushLast = false;
  private readonly longestFlushWaitMs: number;

  constructor(
    private readonly connection: Connection,
    private readonly fence: FenceMode = 'atomic',
    options: UsageLedgerOptions = {},
  ) {
    this.longestFlushWaitMs = options.longestFlushWaitMs ?? 5_000;
  }

  /**
   * How many keys' counts one flush should carry. On FerretDB every update costs several milliseconds of its CPU
   * (measured: 50 updates by `_id` in one command took 300-1,000 ms) and holds the node's writes for that long, so the
   * flush goes in small groups and a reservation waits for one of them at most (see `write`).
   */
  get flushGroupSize(): number {
    return this.fence === 'read-then-write' ? 10 : 50;
  }

  private get collection() {
    return this.connection.db!.collection<LedgerDocument>('monthly_usage');
  }

  private get epochs() {
    return this.connection.db!.collection<{ _id: string; value: number }>('quota_epochs');
  }

  /**
   * The fencing token of a new partition ownership: one counter in the same database as the usage it fences, so
   * every token is above every token already written into a usage document, whatever happened to the leases.
   */
  async nextEpoch(): Promise<number> {
    const doc = await this.write(() =>
      this.epochs.findOneAndUpdate(
        { _id: 'ownership' },
        { $inc: { value: 1 } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    return doc!.value;
  }

  /** Lifts the counter above the highest token found in usage documents (data written before the counter existed). */
  async ensureEpochFloor(): Promise<void> {
    const [highest] = await this.collection
      .find({}, { projection: { epoch: 1 } })
      .sort({ epoch: -1 })
      .limit(1)
      .toArray();
    if (highest?.epoch) {
      await this.write(() =>
        this.epochs.updateOne({ _id: 'ownership' }, { $max: { value: highest.epoch } }, { upsert: true }),
      );
    }
  }

  /**
   * Claims the key's month for `epoch` and returns what this owner may rely on. A reservation left by an owner
   * that died (reserved > used) is counted as used: its fate is unknown, and block mode must never over-admit.
   */
  async open(keyId: string, month: string, epoch: number, nowMs: number): Promise<UsageSnapshot> {
    const id = monthlyUsageId(keyId, month);
    let doc: LedgerDocument | null;
    try {
      // The claim: $max raises an older (or missing) epoch to ours and leaves a newer one as it is, in one atomic
      // update on MongoDB; a newer epoch in the result means a newer owner holds the month. A claim that finds a
      // newer epoch changes nothing, so FerretDB writes nothing (its whole-document writes could lose one of the
      // newer owner's). The document's updated_at moves with the counts (flush), not with a claim.
      doc = await this.write(() =>
        this.collection.findOneAndUpdate(
          { _id: id },
          {
            $max: { epoch },
            $setOnInsert: {
              key_id: keyId,
              month,
              used: 0,
              reserved: 0,
              suggestions_used: 0,
              days: {},
              created_at: new Date(nowMs),
              updated_at: new Date(nowMs),
            },
          },
          { upsert: true, returnDocument: 'after' },
        ),
      );
    } catch (error) {
      if ((error as { code?: number }).code === 11000) throw new FencedError(keyId);
      throw error;
    }
    if (!doc || doc.epoch !== epoch) throw new FencedError(keyId);
    const used = doc.used ?? 0;
    const reserved = doc.reserved ?? 0;
    const carriedOver = doc.carried_over ?? 0;
    if (reserved > used) {
      const lost = reserved - used;
      const result = await this.write(() =>
        this.collection.updateOne({ _id: id, epoch }, { $inc: { used: lost, [`days.${dayOf(nowMs)}`]: lost } }),
      );
      if (result.matchedCount === 0) throw new FencedError(keyId);
      return { used: reserved, reserved, suggestionsUsed: doc.suggestions_used ?? 0, carriedOver };
    }
    return { used, reserved: used, suggestionsUsed: doc.suggestions_used ?? 0, carriedOver };
  }

  /**
   * Adds `units` the owner took from the customer's allowance (CustomerAllowance) to the key's reservation; returns
   * the new reservation. The customer's chain is what keeps the total within the quota; this write is fenced so
   * that an owner that lost the key cannot reserve for it. `leaseHeld` says, when the write is sent, whether the
   * owner's lease is still valid (as for `flush`).
   */
  async grow(keyId: string, month: string, epoch: number, units: number, leaseHeld: () => boolean): Promise<number> {
    const id = monthlyUsageId(keyId, month);
    // On FerretDB a filter of `_id` alone is the one it answers from the index; `{ _id, epoch }` reads the whole
    // collection, on every reservation, and the node's writes queue behind it. While the lease holds no newer owner
    // can have opened the key (see `flush`), so the epoch is checked in the document it returns instead.
    const grown = await this.write(() =>
      this.collection.findOneAndUpdate(
        this.fence === 'read-then-write' && leaseHeld() ? { _id: id } : { _id: id, epoch },
        { $inc: { reserved: units } },
        { returnDocument: 'after' },
      ),
    );
    if (!grown || grown.epoch !== epoch) throw new FencedError(keyId);
    return grown.reserved;
  }

  /**
   * Writes many keys' deltas in one round trip; reports the keys whose writes that need ownership a newer owner
   * fenced off. `leaseHeld` says, when the write is sent, whether the owner's lease is still valid.
   *
   * What needs ownership: counts admitted against a reservation (block mode), because a newer owner's open counts
   * the whole reservation as used and those counts landing after it would count twice; and every release, because
   * it sets `reserved`, which must never land on a newer owner's document. Metered counts only add up and nobody
   * else counted them, so they are written by `_id` whoever owns the key: dropping them would lose usage.
   */
  async flush(deltas: UsageDelta[], epoch: number, nowMs: number, leaseHeld: () => boolean): Promise<string[]> {
    if (deltas.length === 0) return [];
    const ids = deltas.map((delta) => monthlyUsageId(delta.keyId, delta.month));
    if (this.fence === 'read-then-write') {
      // While the lease is valid when the write is sent, no newer owner can have opened any of these keys (a newer
      // owner's lease starts no earlier than ours ends, plus its margin), so everything goes by `_id` alone and
      // nothing is read first: on FerretDB an `$in` read, like any filter but `_id` alone, reads the whole collection.
      const result = await this.write(
        () =>
          leaseHeld()
            ? this.collection.bulkWrite(
                deltas.map((delta, index) => ({
                  updateOne: { filter: { _id: ids[index]! }, update: withRelease(countsOf(delta, nowMs), delta) },
                })),
                { ordered: false },
              )
            : Promise.resolve(undefined),
        'background',
      );
      if (result?.matchedCount === deltas.length) return [];
      if (result) return this.fencedOf(deltas, ids, epoch);
    }
    // Past the lease (or on MongoDB, where the condition is free): what needs ownership keeps the epoch in its
    // filter. On FerretDB one read first finds the documents still ours, so the others are not even sent.
    const owned = this.fence === 'read-then-write' ? await this.ownedIds(ids, epoch) : undefined;
    const operations = deltas.flatMap((delta, index) => {
      const id = ids[index]!;
      const mayBeOurs = !owned || owned.has(id);
      const fenced = { _id: id, epoch };
      if (delta.againstReservation) {
        return mayBeOurs ? [{ updateOne: { filter: fenced, update: withRelease(countsOf(delta, nowMs), delta) } }] : [];
      }
      const writes = [];
      if (delta.used > 0 || delta.suggestions > 0) {
        writes.push({ updateOne: { filter: { _id: id }, update: countsOf(delta, nowMs) } });
      }
      if (delta.releaseTo !== undefined && mayBeOurs) {
        writes.push({ updateOne: { filter: fenced, update: { $set: { reserved: delta.releaseTo } } } });
      }
      return writes;
    });
    const result =
      operations.length === 0
        ? undefined
        : await this.write(() => this.collection.bulkWrite(operations, { ordered: false }), 'background');
    const skipped =
      owned !== undefined && deltas.some((delta, index) => needsOwnership(delta) && !owned.has(ids[index]!));
    if (!skipped && (result?.matchedCount ?? 0) === operations.length) return [];
    return this.fencedOf(deltas, ids, epoch);
  }

  /**
   * The keys whose writes that need ownership a newer owner holds, read again rather than taken from an earlier read:
   * a newer owner may have opened a key since, and then its release did not land, and the caller must not give the
   * reservation's unused part back to the customer (the newer owner counted it as used).
   */
  private async fencedOf(deltas: UsageDelta[], ids: string[], epoch: number): Promise<string[]> {
    const owned = await this.ownedIds(ids, epoch);
    return deltas.filter((delta, index) => needsOwnership(delta) && !owned.has(ids[index]!)).map((d) => d.keyId);
  }

  /**
   * FerretDB 1.24 on SQLite runs an update as a query that keeps one pooled connection open plus a transaction that
   * needs another, so enough updates at once can each hold one and wait forever for the next (seen in a goroutine
   * dump: the whole database stalled, and every partition queue behind it). There the node sends its writes one at
   * a time; MongoDB takes them concurrently.
   */
  private write<T>(operation: () => Promise<T>, priority: WritePriority = 'decision'): Promise<T> {
    if (this.fence !== 'read-then-write') return operation();
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        Promise.resolve()
          .then(operation)
          .then(resolve, reject)
          .finally(() => {
            this.writing = false;
            this.nextWrite();
          });
      };
      this.waitingWrites[priority].push({ queuedAtMs: Date.now(), run });
      if (!this.writing) this.nextWrite();
    });
  }

  /**
   * A decision's write (a key's month opened, a reservation grown) goes before the flushes waiting, unless the oldest
   * flush has waited longestFlushWaitMs: fresh keys arriving without pause must not hold the counts back for ever
   * (what a crash loses is what was not written). Overdue flushes and decisions then take turns, so that a
   * decision still waits for one flush group at most.
   */
  private nextWrite(): void {
    const { decision, background } = this.waitingWrites;
    const flushOverdue =
      !this.overdueFlushLast &&
      background.length > 0 &&
      Date.now() - background[0]!.queuedAtMs >= this.longestFlushWaitMs;
    this.overdueFlushLast = flushOverdue;
    const next = flushOverdue ? background.shift() : (decision.shift() ?? background.shift());
    if (!next) return;
    this.writing = true;
    next.run();
  }

  private async ownedIds(ids: string[], epoch: number): Promise<Set<string>> {
    const epochs = await this.epochsOf(ids);
    return new Set(ids.filter((id) => epochs.get(id) === epoch));
  }

  /**
   * The epochs of these documents, read together with those every other caller asks for in the same event-loop
   * turn: each partition of a node flushes at the same moment, and FerretDB reads the whole collection for an
   * `$in` filter, so one read serves all of them instead of one read per partition.
   */
  private epochsOf(ids: string[]): Promise<Map<string, number>> {
    let read = this.epochRead;
    if (!read) {
      const wanted = new Set<string>();
      read = {
        wanted,
        result: new Promise((resolve, reject) =>
          setImmediate(() => {
            this.epochRead = undefined;
            this.collection
              .find({ _id: { $in: [...wanted] } }, { projection: { epoch: 1 } })
              .toArray()
              .then((docs) => resolve(new Map(docs.map((doc) => [doc._id, doc.epoch]))), reject);
          }),
        ),
      };
      this.epochRead = read;
    }
    for (const id of ids) read.wanted.add(id);
    return read.result;
  }
}

/**
 * How a fenced write can be made on this database. MongoDB checks `{_id, epoch}` on the `_id` index inside one
 * atomic update. FerretDB 1.24 reads the whole collection for any filter other than `_id` alone, per statement,
 * and applies updates as read-modify-write anyway (no atomicity to lose). There a flush sent while the owner's lease
 * holds writes by `_id` alone (no newer owner can exist yet); one sent past it first reads the epochs, once per
 * flush round of the node (all its partitions together), and sends only the writes of documents still its own.
 */
export type FenceMode = 'atomic' | 'read-then-write';

/** Which of the node's waiting writes goes first on FerretDB: what a decision waits for, then the usage flushes. */
type WritePriority = 'decision' | 'background';

interface WaitingWrite {
  queuedAtMs: number;
  run: () => void;
}

export interface UsageLedgerOptions {
  /**
   * read-then-write only: a usage flush that waited this long goes before the decisions' writes (default 5 s, the
   * quota-actor passes USAGE_FLUSH_MS).
   */
  longestFlushWaitMs?: number;
}

const needsOwnership = (delta: UsageDelta): boolean =>
  delta.againstReservation === true || delta.releaseTo !== undefined;

function withRelease(update: ReturnType<typeof countsOf>, delta: UsageDelta) {
  if (delta.releaseTo !== undefined) update.$set.reserved = delta.releaseTo;
  return update;
}

function countsOf(delta: UsageDelta, nowMs: number) {
  const inc: Record<string, number> = { used: delta.used, suggestions_used: delta.suggestions };
  for (const [day, n] of Object.entries(delta.days)) inc[`days.${day}`] = n;
  return { $inc: inc, $set: { updated_at: new Date(nowMs) } as Record<string, unknown> };
}

export async function fenceModeOf(connection: Connection): Promise<FenceMode> {
  const info = await connection.db!.admin().command({ buildInfo: 1 });
  return typeof info.ferretdbVersion === 'string' ? 'read-then-write' : 'atomic';
}
