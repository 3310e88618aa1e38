import { Schema, type Connection, type Model } from 'mongoose';
import { PLAN_NAMES, type PlanName } from './plan.model';

export interface CustomerDocument {
  /** The customer_id (see natural-ids.ts). */
  _id: string;
  customer_id: string;
  name: string;
  /** Stored lowercased so uniqueness does not depend on case. */
  email: string;
  /** Set by the portal when the customer sets a password; absent until then. */
  password_hash?: string | null;
  plan: PlanName;
  created_at: Date;
  updated_at: Date;
}

const customerSchema = new Schema<CustomerDocument>(
  {
    _id: { type: String, required: true },
    customer_id: { type: String, required: true },
    name: { type: String, required: true, trim: true, maxlength: 200 },
    email: { type: String, required: true, trim: true, lowercase: true, maxlength: 320 },
    password_hash: { type: String, default: null },
    plan: { type: String, required: true, enum: PLAN_NAMES },
  },
  { collection: 'customers', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
);
customerSchema.index({ email: 1 }, { unique: true });

export function customerModel(connection: Connection): Model<CustomerDocument> {
  return (
    (connection.models.Customer as Model<CustomerDocument> | undefined) ??
    connection.model<CustomerDocument>('Customer', customerSchema)
  );
}
