import { Schema, type Connection, type Model } from 'mongoose';
import { PROVIDER_IDS, type ProviderId } from './providers';

export const PLAN_NAMES = ['trial', 'growth', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** block: refuse beyond the quota. metered: admit beyond the quota and count the overage for billing. */
export const OVERAGE_MODES = ['block', 'metered'] as const;
export type OverageMode = (typeof OVERAGE_MODES)[number];

/** The three MCP tiers of spec section 1. */
export const MCP_TIERS = ['basic', 'normalised', 'data_assistant'] as const;
export type McpTier = (typeof MCP_TIERS)[number];

/** A plan's limits (spec section 8). */
export interface Plan {
  name: PlanName;
  providers: ProviderId[];
  rate_limit_rps: number;
  rate_burst: number;
  monthly_quota: number;
  overage_mode: OverageMode;
  /** Connections a customer may hold (spec 8: each grant is one connection). */
  connection_allowance: number;
  mcp_tier: McpTier;
  /** Monthly AI suggestions for find_endpoint (spec 8). */
  suggestion_allowance: number;
}

const positiveInteger = { type: Number, required: true, min: 1, validate: Number.isInteger };
const wholeNumber = { type: Number, required: true, min: 0, validate: Number.isInteger };

/** A plan as stored: its name is its `_id` too (see natural-ids.ts). */
export interface PlanDocument extends Plan {
  _id: PlanName;
}

const planSchema = new Schema<PlanDocument>(
  {
    _id: { type: String, required: true, enum: PLAN_NAMES },
    name: { type: String, required: true, enum: PLAN_NAMES },
    providers: { type: [{ type: String, enum: PROVIDER_IDS }], required: true },
    rate_limit_rps: positiveInteger,
    rate_burst: positiveInteger,
    monthly_quota: wholeNumber,
    overage_mode: { type: String, required: true, enum: OVERAGE_MODES },
    connection_allowance: wholeNumber,
    mcp_tier: { type: String, required: true, enum: MCP_TIERS },
    suggestion_allowance: wholeNumber,
  },
  { collection: 'plans', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
);

export function planModel(connection: Connection): Model<PlanDocument> {
  return (
    (connection.models.Plan as Model<PlanDocument> | undefined) ?? connection.model<PlanDocument>('Plan', planSchema)
  );
}
