import { Schema, type Connection, type Model } from 'mongoose';
import { PROVIDER_IDS, type ProviderId } from './providers';

export const API_KEY_STATUSES = ['active', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/** portal: created in the key portal. oauth: created by an assistant sign-in (spec 5.3 step 6). */
export const API_KEY_SOURCES = ['portal', 'oauth'] as const;
export type ApiKeySource = (typeof API_KEY_SOURCES)[number];

export interface ApiKeyOAuthGrant {
  /** The static client id of the assistant product. */
  client_id: string;
  /** The signed-in user the permission is bound to. */
  subject: string;
}

export interface ApiKeyDocument {
  /**
   * The hash again: every request looks its key up by it, and FerretDB 1.24 (the development and CI database) runs
   * only `_id` equality in SQLite and scans the collection for any other field (see natural-ids.ts).
   */
  _id: string;
  /** Public short id (GET /v1/me key_id); safe in logs. */
  key_id: string;
  /** Lowercase hex SHA-256 of the secret; the secret itself is never stored (spec 2.1). */
  hash: string;
  name: string;
  customer_id: string;
  providers: ProviderId[];
  account_ids: string[];
  /** Normalised CIDRs; empty means no allowlist (spec 5.1 rule 5). */
  ip_allowlist: string[];
  /**
   * When true the key's connections are all the customer's connections (not revoked) of its providers, read when
   * the key's actor loads it, and account_ids is ignored: an assistant's key keeps up with the connections the
   * customer grants later (issue 15). Absent on keys stored before the field existed: false.
   */
  follows_connections: boolean;
  status: ApiKeyStatus;
  source: ApiKeySource;
  oauth: ApiKeyOAuthGrant | null;
  /** key_id of the key that replaced this one on rotation. */
  replaced_by: string | null;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const oauthSchema = new Schema<ApiKeyOAuthGrant>(
  {
    client_id: { type: String, required: true },
    subject: { type: String, required: true },
  },
  { _id: false, versionKey: false },
);

const apiKeySchema = new Schema<ApiKeyDocument>(
  {
    _id: { type: String, required: true },
    key_id: { type: String, required: true },
    hash: { type: String, required: true, match: /^[0-9a-f]{64}$/ },
    name: { type: String, required: true, trim: true, maxlength: 200 },
    customer_id: { type: String, required: true },
    providers: { type: [{ type: String, enum: PROVIDER_IDS }], default: [] },
    account_ids: { type: [String], default: [] },
    ip_allowlist: { type: [String], default: [] },
    follows_connections: { type: Boolean, default: false },
    status: { type: String, required: true, enum: API_KEY_STATUSES, default: 'active' },
    source: { type: String, required: true, enum: API_KEY_SOURCES, default: 'portal' },
    oauth: { type: oauthSchema, default: null },
    replaced_by: { type: String, default: null },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'api_keys', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
);
apiKeySchema.index({ key_id: 1 }, { unique: true });
apiKeySchema.index({ customer_id: 1 });

export function apiKeyModel(connection: Connection): Model<ApiKeyDocument> {
  return (
    (connection.models.ApiKey as Model<ApiKeyDocument> | undefined) ??
    connection.model<ApiKeyDocument>('ApiKey', apiKeySchema)
  );
}
