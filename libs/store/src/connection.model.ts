import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedCredentials } from './credential-cipher';
import { PROVIDER_IDS, type ProviderId } from './providers';

/** needs_regrant: the platform refused the tokens; the customer re-grants in the portal (spec 3). */
export const CONNECTION_STATUSES = ['active', 'revoked', 'needs_regrant'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export interface ConnectionDocument {
  /** The account_id (see natural-ids.ts). */
  _id: string;
  /** Stable across re-grants (spec 2.2), so client code keeps working. */
  account_id: string;
  customer_id: string;
  provider: ProviderId;
  /** The platform's own ids behind this connection (advertiser ids, shop id). */
  external_account_ids: string[];
  /** AES-256-GCM of the platform tokens, AAD = account_id. Never the plaintext. */
  credentials: SealedCredentials;
  /**
   * When the sealed refresh token expires, in the clear so that provider-proxy's refresh-token sweep can ask for the
   * connections due instead of opening every one; null when the credentials hold no refresh token or no expiry.
   * Missing on documents written before it existed: the sweep examines those until their next renewal writes it.
   */
  refresh_token_expires_at?: Date | null;
  status: ConnectionStatus;
  granted_at: Date;
  created_at: Date;
  updated_at: Date;
}

const sealedSchema = new Schema<SealedCredentials>(
  {
    kid: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    data: { type: String, required: true },
  },
  { _id: false, versionKey: false },
);

const connectionSchema = new Schema<ConnectionDocument>(
  {
    _id: { type: String, required: true },
    account_id: { type: String, required: true },
    customer_id: { type: String, required: true },
    provider: { type: String, required: true, enum: PROVIDER_IDS },
    external_account_ids: { type: [String], default: [] },
    credentials: { type: sealedSchema, required: true },
    refresh_token_expires_at: { type: Date, default: undefined },
    status: { type: String, required: true, enum: CONNECTION_STATUSES, default: 'active' },
    granted_at: { type: Date, required: true },
  },
  { collection: 'connections', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
);
connectionSchema.index({ customer_id: 1, provider: 1 });
connectionSchema.index({ status: 1, refresh_token_expires_at: 1 });

export function connectionModel(connection: Connection): Model<ConnectionDocument> {
  return (
    (connection.models.Connection as Model<ConnectionDocument> | undefined) ??
    connection.model<ConnectionDocument>('Connection', connectionSchema)
  );
}
