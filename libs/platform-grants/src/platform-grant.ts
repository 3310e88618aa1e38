/**
 * The portal's grant flow per provider (docs/portal.md, "Grant flows"): the customer is sent to the platform's
 * authorization page and comes back to the portal's callback with a single-use code, which the plug-in turns
 * into one or more platform accounts, each becoming (or renewing) one connection.
 */

/**
 * What a connection stores, sealed: the shape of `PlatformCredentials` of @gateway/store (the portal hands it
 * to the store as is; the type is repeated here so this lib needs no store dependency).
 */
export interface GrantedCredentials {
  access_token: string;
  refresh_token?: string;
  /** ISO 8601 instants. */
  access_token_expires_at?: string;
  refresh_token_expires_at?: string;
  /** Provider values that are not tokens (a shop's cipher); sealed with the tokens. */
  attributes?: Record<string, string>;
}

/** One platform account the grant covers: one connection of the portal. */
export interface GrantedAccount {
  externalAccountIds: string[];
  credentials: GrantedCredentials;
}

/** The portal callback's query as received (code or auth_code, state, the platform's own parameters). */
export type GrantCallbackQuery = Readonly<Record<string, string | undefined>>;

export interface PlatformGrant {
  readonly provider: string;
  /**
   * How a re-grant started from a connection finds that connection among the granted accounts.
   * `grant`: the connection is the grant itself; whatever accounts the new grant covers replace the old ones.
   * `same_accounts`: only an account with the connection's external ids renews it (a video-shop shop).
   */
  readonly regrantMatch: 'grant' | 'same_accounts';
  /** Where to send the customer to grant access. */
  authorizationUrl(state: string, redirectUri: string): string;
  /** Exchanges the callback's code; GrantExchangeError when the platform refuses. Never exposes secrets. */
  exchange(query: GrantCallbackQuery): Promise<GrantedAccount[]>;
}

export class GrantExchangeError extends Error {
  constructor(
    readonly platformCode: number,
    message: string,
  ) {
    super(`the platform refused the grant (${platformCode}): ${message}`);
    this.name = 'GrantExchangeError';
  }
}

/** A platform message with every known secret or token blanked out, safe for errors and logs. */
export function redacted(message: string, secrets: ReadonlyArray<string | undefined>): string {
  let text = message;
  for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
  return text;
}
