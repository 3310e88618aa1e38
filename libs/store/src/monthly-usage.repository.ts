import type { Connection, Model } from 'mongoose';
import { documentLockFor, type DocumentLock } from './document-lock';
import { monthlyUsageId, monthlyUsageModel, type MonthlyUsageDocument } from './monthly-usage.model';
import { StoreError, isDuplicateKeyError, requireString, requireStringArray } from './store-error';

export interface MonthlyUsageRecord {
  key_id: string;
  month: string;
  used: number;
  days: Record<string, number>;
}

/** One key's own part of its customer's month: what it counted itself, not what rotation carried into it. */
export interface KeyMonthShare {
  key_id: string;
  used: number;
  suggestions_used: number;
  days: Record<string, number>;
}

/** A customer's month: the sums of its keys' own counts, which is what the customer's quota is drawn from. */
export interface CustomerMonthUsage {
  month: string;
  used: number;
  suggestions_used: number;
  /** In the order of the key ids asked for; a key without a document counts zero. */
  keys: KeyMonthShare[];
}

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** 'YYYY-MM' of an instant, in UTC (quota months are calendar months in UTC). */
export function usageMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** 'DD' of an instant, in UTC. */
export function usageDay(at: Date): string {
  return at.toISOString().slice(8, 10);
}

export class MonthlyUsageRepository {
  private readonly usage: Model<MonthlyUsageDocument>;
  private readonly lock: DocumentLock;

  constructor(connection: Connection) {
    this.usage = monthlyUsageModel(connection);
    this.lock = documentLockFor(connection);
  }

  /**
   * Counts `n` requests of the key at `at` with one upsert ($inc of the month and the day). Returns the month
   * after the change. Atomic on MongoDB; on FerretDB only the in-process document lock keeps concurrent adds
   * from losing counts, which holds because one actor process owns a key's usage.
   */
  async add(keyId: string, at: Date, n = 1): Promise<MonthlyUsageRecord> {
    requireString(keyId, 'key_id');
    if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new StoreError('invalid_input', 'at must be a Date');
    if (!Number.isSafeInteger(n) || n < 1) throw new StoreError('invalid_input', 'n must be a positive integer');
    const month = usageMonth(at);
    const update = { $inc: { used: n, [`days.${usageDay(at)}`]: n }, $setOnInsert: { key_id: keyId, month } };
    const upsert = () =>
      this.usage.findOneAndUpdate({ _id: monthlyUsageId(keyId, month) }, update, { upsert: true, new: true }).lean();
    const doc = await this.lock.run(`monthly_usage:${keyId}:${month}`, async () => {
      try {
        return await upsert();
      } catch (error) {
        // Two processes' first writes of a month can race on the unique index; the loser's retry finds it.
        if (!isDuplicateKeyError(error)) throw error;
        return upsert();
      }
    });
    return toUsageRecord(doc, keyId, month);
  }

  /** The key's usage in a month; zero when nothing was counted. */
  async get(keyId: string, month: string): Promise<MonthlyUsageRecord> {
    requireString(keyId, 'key_id');
    requireMonth(month);
    const doc = await this.usage.findOne({ _id: monthlyUsageId(keyId, month) }).lean();
    return toUsageRecord(doc, keyId, month);
  }

  /**
   * The month of a customer's keys (pass all of them, revoked and rotated ones too: their units stay spent). Each
   * key's share is its own count: `used` minus `carried_over`, which rotation copied from the key it replaced until
   * counts became the customer's, and which that key's own document still counts, so the sum counts every unit once. Suggestions have no carried-over
   * field, so each document's `suggestions_used` is taken as it is. One read by `_id` (FerretDB runs `_id` filters
   * without scanning the collection).
   */
  async customerMonth(keyIds: readonly string[], month: string): Promise<CustomerMonthUsage> {
    const unique = [...new Set(requireStringArray(keyIds, 'key_ids'))];
    requireMonth(month);
    const ids = unique.map((keyId) => monthlyUsageId(keyId, month));
    const docs =
      ids.length === 0
        ? []
        : await this.usage
            .find({ _id: { $in: ids } }, { used: 1, carried_over: 1, suggestions_used: 1, days: 1 })
            .lean<Pick<MonthlyUsageDocument, '_id' | 'used' | 'carried_over' | 'suggestions_used' | 'days'>[]>();
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    const keys = unique.map((keyId): KeyMonthShare => {
      const doc = byId.get(monthlyUsageId(keyId, month));
      return {
        key_id: keyId,
        // The ledger writes no carried_over, and older documents may lack other counts: missing is 0.
        used: Math.max(0, count(doc?.used) - count(doc?.carried_over)),
        suggestions_used: count(doc?.suggestions_used),
        days: { ...doc?.days },
      };
    });
    return {
      month,
      used: keys.reduce((sum, key) => sum + key.used, 0),
      suggestions_used: keys.reduce((sum, key) => sum + key.suggestions_used, 0),
      keys,
    };
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function requireMonth(month: unknown): void {
  if (typeof month !== 'string' || !MONTH_PATTERN.test(month)) {
    throw new StoreError('invalid_input', 'month must be YYYY-MM');
  }
}

function toUsageRecord(doc: MonthlyUsageDocument | null, keyId: string, month: string): MonthlyUsageRecord {
  if (doc === null) return { key_id: keyId, month, used: 0, days: {} };
  return { key_id: doc.key_id, month: doc.month, used: doc.used, days: { ...doc.days } };
}
