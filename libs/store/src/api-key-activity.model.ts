import { Schema, type Connection, type Model } from 'mongoose';

/**
 * last_used_at lives in its own document, written only by the key's actor, rather than on the key. The key
 * document is written by portal-api (revoke, rotate); on FerretDB two processes updating one document lose
 * writes (see document-lock.ts), and a lost revoke would bring a key back to life.
 */
export interface ApiKeyActivityDocument {
  /** The key_id (one document per key, looked up by `_id`: see natural-ids.ts). */
  _id: string;
  key_id: string;
  last_used_at: Date;
}

const apiKeyActivitySchema = new Schema<ApiKeyActivityDocument>(
  {
    _id: { type: String, required: true },
    key_id: { type: String, required: true },
    last_used_at: { type: Date, required: true },
  },
  { collection: 'api_key_activity', versionKey: false },
);

export function apiKeyActivityModel(connection: Connection): Model<ApiKeyActivityDocument> {
  return (
    (connection.models.ApiKeyActivity as Model<ApiKeyActivityDocument> | undefined) ??
    connection.model<ApiKeyActivityDocument>('ApiKeyActivity', apiKeyActivitySchema)
  );
}
