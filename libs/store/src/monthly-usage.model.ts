import { Schema, type Connection, type Model } from 'mongoose';

/** One document per key per calendar month (UTC). */
export interface MonthlyUsageDocument {
  /** `${key_id}:${month}` (monthlyUsageId): the limiter reads and writes it by `_id` (see natural-ids.ts). */
  _id: string;
  key_id: string;
  /** 'YYYY-MM' in UTC. */
  month: string;
  /** Requests counted this month (spec 8: one request is one unit, whatever the rows). */
  used: number;
  /** Per-day counts keyed by 'DD' (UTC), for the portal's usage chart. */
  days: Record<string, number>;
  /**
   * Units the key's owner may admit without asking again (block mode). A crash leaves reserved > used; the next
   * owner counts the difference as used, so a crash never lets a key over its quota (quota-actor's ledger).
   */
  reserved: number;
  /** find_endpoint AI suggestions used this month (spec 4.3 rule 5). */
  suggestions_used: number;
  /**
   * Units rotation copied from the key this one replaced, in documents written before the quota became the
   * customer's; they are the old key's share, not this one's. Nothing writes it any more.
   */
  carried_over: number;
  /** Lease epoch of the owner that last opened the month; the owner's writes are conditional on it (fencing). */
  epoch: number;
  created_at: Date;
  updated_at: Date;
}

/** The `_id` of a key's month. Key ids and months never contain ':', so the pair reads back unambiguously. */
export function monthlyUsageId(keyId: string, month: string): string {
  return `${keyId}:${month}`;
}

const monthlyUsageSchema = new Schema<MonthlyUsageDocument>(
  {
    _id: { type: String, required: true },
    key_id: { type: String, required: true },
    month: { type: String, required: true, match: /^\d{4}-(0[1-9]|1[0-2])$/ },
    used: { type: Number, required: true, default: 0 },
    days: { type: Map, of: Number, default: {} },
    reserved: { type: Number, default: 0 },
    suggestions_used: { type: Number, default: 0 },
    carried_over: { type: Number, default: 0 },
    epoch: { type: Number, default: 0 },
  },
  {
    collection: 'monthly_usage',
    versionKey: false,
    timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
  },
);
monthlyUsageSchema.index({ key_id: 1, month: 1 }, { unique: true });

export function monthlyUsageModel(connection: Connection): Model<MonthlyUsageDocument> {
  return (
    (connection.models.MonthlyUsage as Model<MonthlyUsageDocument> | undefined) ??
    connection.model<MonthlyUsageDocument>('MonthlyUsage', monthlyUsageSchema)
  );
}
