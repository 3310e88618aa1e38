import { Schema, type Connection, type Model } from 'mongoose';

/**
 * What an assistant was allowed (spec 5.3): the client, the signed-in customer, the "<assistant> (OAuth)" key the
 * consent created, the MCP resource (RFC 8707) and the scopes. Codes and tokens each carry a copy.
 */
export interface OAuthGrantFields {
  client_id: string;
  customer_id: string;
  /** SHA-256 of the OAuth key: mcp-server asks that key's actor for every decision. */
  key_hash: string;
  /** The MCP URL the tokens are for: their audience. */
  resource: string;
  scopes: string[];
  /**
   * Every code and token of one authorization shares it: a reused code or refresh token revokes the family
   * (RFC 9700 section 4.14.2, RFC 6749 section 4.1.2).
   */
  family_id: string;
}

export interface OAuthCodeDocument extends OAuthGrantFields {
  /** SHA-256 of the code; the code itself is only in the redirect to the assistant. */
  _id: string;
  redirect_uri: string;
  /** PKCE S256 challenge (RFC 7636). */
  code_challenge: string;
  expires_at: Date;
  /** Set when the code is exchanged: a code is accepted once. */
  used_at: Date | null;
  created_at: Date;
}

export const OAUTH_TOKEN_KINDS = ['access', 'refresh'] as const;
export type OAuthTokenKind = (typeof OAUTH_TOKEN_KINDS)[number];

export interface OAuthTokenDocument extends OAuthGrantFields {
  /** SHA-256 of the token: mcp-server looks an access token up by `_id` only (see natural-ids.ts). */
  _id: string;
  kind: OAuthTokenKind;
  expires_at: Date;
  revoked_at: Date | null;
  /** Refresh tokens: set when exchanged for new tokens; presenting it again revokes the family. */
  rotated_at: Date | null;
  created_at: Date;
}

const grantFields = {
  client_id: { type: String, required: true },
  customer_id: { type: String, required: true },
  key_hash: { type: String, required: true, match: /^[0-9a-f]{64}$/ },
  resource: { type: String, required: true },
  scopes: { type: [String], default: [] },
  family_id: { type: String, required: true },
};

const codeSchema = new Schema<OAuthCodeDocument>(
  {
    _id: { type: String, required: true, match: /^[0-9a-f]{64}$/ },
    ...grantFields,
    redirect_uri: { type: String, required: true },
    code_challenge: { type: String, required: true },
    expires_at: { type: Date, required: true },
    used_at: { type: Date, default: null },
  },
  { collection: 'oauth_codes', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: false } },
);

const tokenSchema = new Schema<OAuthTokenDocument>(
  {
    _id: { type: String, required: true, match: /^[0-9a-f]{64}$/ },
    ...grantFields,
    kind: { type: String, required: true, enum: OAUTH_TOKEN_KINDS },
    expires_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
    rotated_at: { type: Date, default: null },
  },
  { collection: 'oauth_tokens', versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: false } },
);
tokenSchema.index({ family_id: 1 });

export function oauthCodeModel(connection: Connection): Model<OAuthCodeDocument> {
  return (
    (connection.models.OAuthCode as Model<OAuthCodeDocument> | undefined) ??
    connection.model<OAuthCodeDocument>('OAuthCode', codeSchema)
  );
}

export function oauthTokenModel(connection: Connection): Model<OAuthTokenDocument> {
  return (
    (connection.models.OAuthToken as Model<OAuthTokenDocument> | undefined) ??
    connection.model<OAuthTokenDocument>('OAuthToken', tokenSchema)
  );
}
