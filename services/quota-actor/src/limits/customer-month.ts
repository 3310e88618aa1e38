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

export interface CustomerMonthOptions {
  /** A customer's shares are read again when older than this, in the background (default 1 s). */
  refreshMs?: number;
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
  private readonly refreshMs: number;
  private readonly keyListTtlMs: number;

  constructor(
    private readonly connection: Connection,
    options: CustomerMonthOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 1_000;
    this.keyListTtlMs = options.keyListTtlMs ?? 30_000;
  }

  /** The last shares read, starting a background read when they are missing or stale (never waits). */
  peek(customerId: string, month: string, nowMs: number): CustomerMonthShares | undefined {
    const known = this.shares.get(customerId)?.get(month);
    if (!known || nowMs - known.readAtMs >= this.refreshMs) {
      void this.read(customerId, month).catch(() => undefined);
    }
    return known;
  }

  /**
   * Reads the shares (one read per customer-month at a time); `fresh` starts a read of its own, for a caller that
   * just had the counts written and must not get a read that began before.
   */
  read(customerId: string, month: string, { fresh = false } = {}): Promise<CustomerMonthShares> {
    const id = `${customerId}|${month}`;
    let pending = fresh ? undefined : this.reading.get(id);
    if (!pending) {
      pending = this.load(customerId, month)
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
    const { keys } = await this.load(customerId, month);
    let total = 0;
    for (const share of keys.values()) {
      total += kind === 'requests' ? Math.max(share.used, share.reserved) : share.suggestions;
    }
    return total;
  }

  private async load(customerId: string, month: string): Promise<CustomerMonthShares> {
    const readAtMs = Date.now();
    const keyIds = await this.keyIdsOf(customerId, readAtMs);
    const usage = this.connection.db!.collection<UsageFields>('monthly_usage');
    // One query for all the customer's keys, by `_id`: MongoDB answers `$in` from the `_id` index. FerretDB's SQLite
    // backend scans the collection for it (docs/benchmarks.md, "FerretDB in the figures"), still cheaper there than
    // the lookup per key this replaced, which cost a round trip and a database request per key.
    const docs =
      keyIds.length === 0
        ? []
        : await usage
            .find({ _id: { $in: keyIds.map((keyId) => monthlyUsageId(keyId, month)) } }, { projection: SHARE_FIELDS })
            .toArray();
    const keys = new Map<string, KeyShare>();
    for (const doc of docs) {
      if (!doc) continue;
      const carried = doc.carried_over ?? 0;
      keys.set(doc.key_id, {
        used: Math.max(0, (doc.used ?? 0) - carried),
        reserved: Math.max(0, (doc.reserved ?? 0) - carried),
        suggestions: doc.suggestions_used ?? 0,
      });
    }
    return sharesOf(readAtMs, keys);
  }

  private keyIdsOf(customerId: string, nowMs: number): Promise<string[]> {
    const known = this.keyLists.get(customerId);
    if (known && nowMs - known.readAtMs < this.keyListTtlMs) return known.keyIds;
    const keyIds = this.connection
      .db!.collection<{ key_id: string; customer_id: string }>('api_keys')
      .find({ customer_id: customerId }, { projection: { key_id: 1 } })
      .toArray()
      .then((docs) => docs.map((doc) => doc.key_id));
    this.keyLists.set(customerId, { readAtMs: nowMs, keyIds });
    keyIds.catch(() => this.keyLists.delete(customerId));
    if (this.keyLists.size > 100_000) this.keyLists.clear();
    return keyIds;
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
