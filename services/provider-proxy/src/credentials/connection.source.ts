import { isProviderId, type ProviderId } from '@gateway/catalogue';
import {
  CredentialCipherError,
  StoreError,
  type ConnectionRecord,
  type CredentialsWrite,
  type PlatformCredentials,
} from '@gateway/store';
import type { ConnectionCredentials } from '../adapters/provider-adapter';

/** What the proxy needs to know about one connection. */
export type ConnectionLookup =
  | { found: false }
  | { found: true; provider: string; active: false; status: string }
  | { found: true; provider: string; active: true; credentials: ConnectionCredentials };

/** Where connections and their decrypted credentials come from; MongoDB in production. */
export interface ConnectionSource {
  /** Throws on a store outage; a connection whose credentials cannot be opened throws UnusableCredentialsError. */
  lookup(accountId: string): Promise<ConnectionLookup>;
  /**
   * Stores renewed credentials (sealed) in place of the ones the renewal started from: `superseded` when others
   * (a re-grant) replaced those meanwhile, `inactive` when the connection is no longer active.
   */
  store(
    accountId: string,
    renewedFrom: ConnectionCredentials,
    renewed: ConnectionCredentials,
  ): Promise<CredentialsWrite>;
  /**
   * The platform refused `refused` for good (a renewal, or a long-lived token): the customer must re-grant in the
   * portal. `superseded` when the stored tokens are no longer those (re-granted meanwhile): nothing is marked.
   */
  markNeedsRegrant(accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite>;
}

/** The active connections whose refresh token is due, page by page: what the refresh-token sweep walks. */
export interface ConnectionLister {
  /**
   * Up to `limit` active connections of `providers` whose refresh token expires by `dueBy` (or whose expiry is only
   * known once opened), in account id order after `after`.
   */
  listRefreshDue(
    providers: readonly string[],
    dueBy: Date,
    after: string | undefined,
    limit: number,
  ): Promise<{ accountId: string; provider: string }[]>;
}

/** The stored credentials exist but cannot be used (wrong keyring, tampered, unexpected shape). */
export class UnusableCredentialsError extends Error {
  constructor(accountId: string, options?: { cause?: unknown }) {
    super(`the stored credentials of ${accountId} cannot be opened`, options);
    this.name = 'UnusableCredentialsError';
  }
}

/** The part of @gateway/store's ConnectionRepository the proxy reads. */
export interface ConnectionReader {
  findByAccountId(accountId: string): Promise<ConnectionRecord | null>;
  loadCredentials(accountId: string): Promise<PlatformCredentials | null>;
  replaceCredentials(
    accountId: string,
    renewedFrom: PlatformCredentials,
    renewed: PlatformCredentials,
  ): Promise<CredentialsWrite>;
  markNeedsRegrant(accountId: string, refused: PlatformCredentials): Promise<CredentialsWrite>;
  listRefreshDue(
    providers: readonly ProviderId[],
    dueBy: Date,
    after: string | undefined,
    limit: number,
  ): Promise<{ account_id: string; provider: string }[]>;
}

export class StoreConnectionSource implements ConnectionSource, ConnectionLister {
  constructor(private readonly connections: ConnectionReader) {}

  async lookup(accountId: string): Promise<ConnectionLookup> {
    const record = await this.connections.findByAccountId(accountId);
    if (record === null) return { found: false };
    if (record.status !== 'active') {
      return { found: true, provider: record.provider, active: false, status: record.status };
    }
    let credentials: PlatformCredentials | null;
    try {
      credentials = await this.connections.loadCredentials(accountId);
    } catch (error) {
      if (isCredentialError(error)) throw new UnusableCredentialsError(accountId, { cause: error });
      throw error;
    }
    // Revoked between the two reads: loadCredentials only opens active connections.
    if (credentials === null) return { found: true, provider: record.provider, active: false, status: 'revoked' };
    return { found: true, provider: record.provider, active: true, credentials };
  }

  store(
    accountId: string,
    renewedFrom: ConnectionCredentials,
    renewed: ConnectionCredentials,
  ): Promise<CredentialsWrite> {
    return this.connections.replaceCredentials(accountId, renewedFrom, renewed);
  }

  markNeedsRegrant(accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite> {
    return this.connections.markNeedsRegrant(accountId, refused);
  }

  async listRefreshDue(
    providers: readonly string[],
    dueBy: Date,
    after: string | undefined,
    limit: number,
  ): Promise<{ accountId: string; provider: string }[]> {
    const page = await this.connections.listRefreshDue(providers.filter(isProviderId), dueBy, after, limit);
    return page.map((connection) => ({ accountId: connection.account_id, provider: connection.provider }));
  }
}

function isCredentialError(error: unknown): boolean {
  return (
    error instanceof CredentialCipherError ||
    (error instanceof StoreError && (error.code === 'integrity' || error.code === 'no_cipher'))
  );
}
