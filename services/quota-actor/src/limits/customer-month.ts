import { monthlyUsageId } from '@gateway/store';
import type { Connection } from 'mongoose';

/** One key's own part of its customer's month: units carried over from a rotated predecessor are not its own. */
export interface KeyShare {
  used: number;
  reserved: number;
  suggestions: number;
}

/** A customer's month as the ledger held it at `readAtMs`, key by key, and summed once (read on every decision). */
export interface CustomerMonthShares {
  readAtMs: number;
  keys: ReadonlyMap<string, KeyShare>;
  total: { used: number; suggestions: number };
}

export function sharesOf(readAtMs: number, keys: ReadonlyMap<string, KeyShare>): CustomerMonthShares {
  const total = { used: 0, suggestions: 0 };
  for (const share of keys.values()) {
    total.used += share.used;
    total.suggestions += share.suggestions;
  }
  return { readAtMs, keys, total };
}

interface UsageFields {
  _id: string;
  key_id: string;
  used?: number;
  reserved?: number;
  suggestions_used?: number;
  carried_over?: number;
}

/** What a share is made of: without `days` (a counter per day of the month), a document is a fraction of its size. */
const SHARE_FIELDS = { key_id: 1, used: 1, reserved: 1, suggestions_used: 1, carried_over: 1 } as const;

/** The customer-months the next batch read will read, by `${customerId}|${month}`, and its outcome. */
interface SharesBatch {
  wanted: Map<string, { customerId: string; month: string }>;
  /** A caller waits for one of its customer-months: the batch starts as soon as none runs, whatever the pacing. */
  urgent: boolean;
  result: Promise<Map<string, CustomerMonthShares>>;
  settle: { resolve(shares: Map<string, CustomerMonthShares>): void; reject(reason: unknown): void };
}

/** Bounds one `$in` of a batch read (a BSON command holds at most 16 MB; 5,000 ids are about 250 KB). */
const MAX_IDS_PER_READ = 5_000;

export interface CustomerMonthOptions {
  /** A customer's shares are read again when older than this, in the background (default 1 s). */
  refreshMs?: number;
  /**
   * Background reads begin at least this long after the batch before them began (default a fifth of refreshMs); a
   * read a caller waits for is not held back.
   */
  batchGapMs?: number;
  /** The list of a customer's keys is read again when older than this (default 30 s; keys change rarely). */
  keyListTtlMs?: number;
}

/**
 * What every key of a customer used this month, for the answers that report the customer's month (quota headers,
 * /v1/me, check_quota). Each owner knows its own keys exactly; the other keys are read from the ledger, at most
 * `refreshMs` old (plus their owners' flush interval). Admission never depends on these figures: block mode
 * admits against reservations taken from the customer's allowance chain (CustomerAllowance).
 */
export class CustomerMonth {
  /** By customer, then month: peek runs on every decision, and the record's customer id is a string V8 has hashed. */
  private readonly shares = new Map<string, Map<string, CustomerMonthShares>>();
  private readonly reading = new Map<string, Promise<CustomerMonthShares>>();
  private readonly keyLists = new Map<string, { readAtMs: number; keyIds: Promise<string[]> }>();
  private nextBatch: SharesBatch | undefined;
  private batchRunning = false;
  private batchStartPending = false;
  private batchTimer: NodeJS.Timeout | undefined;
  private lastBatchAtMs = Number.NEGATIVE_INFINITY;
  private readonly refreshMs: number;
  private readonly batchGapMs: number;
  private readonly keyListTtlMs: number;

  constructor(
    private readonly connection: Connection,
    options: CustomerMonthOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 1_000;
    this.batchGapMs = Math.min(this.refreshMs, options.batchGapMs ?? this.refreshMs / 5);
    this.keyListTtlMs = options.keyListTtlMs ?? 30_000;
  }

  /**
   * The last shares read, starting a background read when they are missing or about to be stale (never waits): begun
   * batchGapMs before they are refreshMs old, the paced read still finds them within refreshMs.
   */
  peek(customerId: string, month: string, nowMs: number): CustomerMonthShares | undefined {
    const known = this.shares.get(customerId)?.get(month);
    if (!known || nowMs - known.readAtMs >= this.refreshMs - this.batchGapMs) {
      void this.start(customerId, month, false, false).catch(() => undefined);
    }
    return known;
  }

  /**
   * Reads the shares (one read per customer-month at a time); `fresh` starts a read of its own, for a caller that
   * just had the counts written and must not get a read that began before.
   */
  read(customerId: string, month: string, { fresh = false } = {}): Promise<CustomerMonthShares> {
    return this.start(customerId, month, fresh, true);
  }

  private start(customerId: string, month: string, fresh: boolean, urgent: boolean): Promise<CustomerMonthShares> {
    const id = `${customerId}|${month}`;
    let pending = fresh ? undefined : this.reading.get(id);
    if (pending && urgent && this.nextBatch?.wanted.has(id)) {
      // A background read not begun yet: the caller waiting for it takes its whole batch out of the pacing.
      this.nextBatch.urgent = true;
      this.schedule();
    }
    if (!pending) {
      pending = this.load(customerId, month, urgent)
        .then((shares) => {
          let months = this.shares.get(customerId);
          if (!months) {
            if (this.shares.size >= 100_000) this.shares.clear();
            this.shares.set(customerId, (months = new Map()));
          }
          months.set(month, shares);
          // The month that just ended may still be asked for around midnight; older ones never are.
          if (months.size > 2) months.delete(months.keys().next().value!);
          return shares;
        })
        .finally(() => {
          if (this.reading.get(id) === pending) this.reading.delete(id);
        });
      this.reading.set(id, pending);
    }
    return pending;
  }

  /** Units the customer's keys used this month before its allowance chain existed (its genesis step). */
  async unitsBefore(customerId: string, month: string, kind: 'requests' | 'suggestions'): Promise<number> {
    // The read under way for this customer-month serves, when there is one (the decision that needs the genesis
    // started one a moment before, for its quota headers): without a chain nothing takes units from it meanwhile.
    const { keys } = await this.read(customerId, month);
    let total = 0;
    for (const share of keys.values()) {
      total += kind === 'requests' ? Math.max(share.used, share.reserved) : share.suggestions;
    }
    return total;
  }

  /**
   * Joins the next batch read. One batch runs at a time per node, and the customer-months asked for meanwhile are
   * read together by the next: FerretDB's SQLite backend reads the whole collection for an `$in` (docs/benchmarks.md,
   * "FerretDB in the figures"), so ten customers refreshed one by one cost ten such reads, and together one. On
   * MongoDB the `$in` is answered from the `_id` index either way. Background batches are paced (batchGapMs): with
   * customers coming due one after another, batches that started as soon as the one before ended ran back to back,
   * a few customers each, as many as the database could answer (docs/benchmarks.md, "Paced customer-month reads").
   */
  private load(customerId: string, month: string, urgent: boolean): Promise<CustomerMonthShares> {
    const id = `${customerId}|${month}`;
    let next = this.nextBatch;
    if (!next) {
      let settle!: SharesBatch['settle'];
      const result = new Promise<Map<string, CustomerMonthShares>>((resolve, reject) => {
        settle = { resolve, reject };
      });
      next = this.nextBatch = { wanted: new Map(), urgent, result, settle };
    }
    next.wanted.set(id, { customerId, month });
    if (urgent) next.urgent = true;
    this.schedule();
    return next.result.then((batch) => batch.get(id)!);
  }

  /** Starts the next batch when it may: once none runs, and for a background batch batchGapMs after the last began. */
  private schedule(): void {
    const next = this.nextBatch;
    if (next === undefined || this.batchRunning || this.batchStartPending) return;
    const waitMs = next.urgent ? 0 : this.lastBatchAtMs + this.batchGapMs - Date.now();
    if (waitMs > 0) {
      this.batchTimer ??= setTimeout(() => {
        this.batchTimer = undefined;
        this.schedule();
      }, waitMs).unref();
      return;
    }
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.batchStartPending = true;
    setImmediate(() => this.runBatch());
  }

  private runBatch(): void {
    this.batchStartPending = false;
    const batch = this.nextBatch!;
    this.nextBatch = undefined;
    this.batchRunning = true;
    const readAtMs = Date.now();
    this.lastBatchAtMs = readAtMs;
    const wanted = [...batch.wanted.entries()];
    this.readShares(
      wanted.map(([, item]) => item),
      readAtMs,
    )
      .then(
        (keysOf) => batch.settle.resolve(new Map(wanted.map(([id], i) => [id, sharesOf(readAtMs, keysOf[i]!)]))),
        batch.settle.reject,
      )
      .finally(() => {
        this.batchRunning = false;
        this.schedule();
      });
  }

  /** Each customer-month's keys, in the order asked: the key lists, then one `$in` by `_id` per MAX_IDS_PER_READ. */
  private async readShares(
    items: readonly { customerId: string; month: string }[],
    nowMs: number,
  ): Promise<Map<string, KeyShare>[]> {
    const keyIds = await this.keyIdsOf(
      items.map((item) => item.customerId),
      nowMs,
    );
    const owner = new Map<string, Map<string, KeyShare>>();
    const results = items.map(({ customerId, month }) => {
      const keys = new Map<string, KeyShare>();
      for (const keyId of keyIds.get(customerId) ?? []) owner.set(monthlyUsageId(keyId, month), keys);
      return keys;
    });
    const usage = this.connection.db!.collection<UsageFields>('monthly_usage');
    const ids = [...owner.keys()];
    for (let start = 0; start < ids.length; start += MAX_IDS_PER_READ) {
      const docs = await usage
        .find({ _id: { $in: ids.slice(start, start + MAX_IDS_PER_READ) } }, { projection: SHARE_FIELDS })
        .toArray();
      for (const doc of docs) {
        const carried = doc.carried_over ?? 0;
        owner.get(doc._id)?.set(doc.key_id, {
          used: Math.max(0, (doc.used ?? 0) - carried),
          reserved: Math.max(0, (doc.reserved ?? 0) - carried),
          suggestions: doc.suggestions_used ?? 0,
        });
      }
    }
    return results;
  }

  /** The key lists of these customers: the ones read less than keyListTtlMs ago, and the others in one query. */
  private async keyIdsOf(customerIds: readonly string[], nowMs: number): Promise<Map<string, string[]>> {
    const stale = [...new Set(customerIds)].filter((customerId) => {
      const known = this.keyLists.get(customerId);
      return !known || nowMs - known.readAtMs >= this.keyListTtlMs;
    });
    if (stale.length > 0) {
      const read = this.connection
        .db!.collection<{ key_id: string; customer_id: string }>('api_keys')
        .find(
          { customer_id: stale.length === 1 ? stale[0]! : { $in: stale } },
          { projection: { key_id: 1, customer_id: 1 } },
        )
        .toArray();
      const byCustomer = read.then((docs) => {
        const lists = new Map<string, string[]>();
        for (const doc of docs) {
          const list = lists.get(doc.customer_id);
          if (list === undefined) lists.set(doc.customer_id, [doc.key_id]);
          else list.push(doc.key_id);
        }
        return lists;
      });
      if (this.keyLists.size + stale.length > 100_000) this.keyLists.clear();
      for (const customerId of stale) {
        const keyIds = byCustomer.then((lists) => lists.get(customerId) ?? []);
        this.keyLists.set(customerId, { readAtMs: nowMs, keyIds });
        keyIds.catch(() => this.keyLists.delete(customerId));
      }
    }
    const lists = await Promise.all(customerIds.map((customerId) => this.keyLists.get(customerId)!.keyIds));
    return new Map(customerIds.map((customerId, i) => [customerId, lists[i]!]));
  }
}

/**
 * The customer's units this month as one key's owner sees them: the others as last read, this key exactly. O(1):
 * it runs on every decision, and a customer may have thousands of keys.
 */
export function customerTotal(
  shares: CustomerMonthShares | undefined,
  keyId: string,
  ownNow: number,
  field: 'used' | 'suggestions',
): number {
  if (!shares) return ownNow;
  return shares.total[field] - (shares.keys.get(keyId)?.[field] ?? 0) + ownNow;
}
