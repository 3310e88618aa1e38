import type { Config } from '../config';
import { matchesRedirectRule, type RedirectRule } from './redirect-uri.matcher';

/** How a client proves its identity at /token and /revoke (RFC 8414 token_endpoint_auth_methods_supported). */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/**
 * A pre-registered assistant product (spec 5.3 rule 2). The client secret is empty for both (rule 3): a client
 * may name itself in the body (`none`), or send an empty client_secret or Basic password where its product does,
 * and any non-empty secret is refused since none was ever issued.
 */
export interface StaticClient {
  clientId: string;
  /** Shown on the consent page and in the key's name "<name> (OAuth)" (spec 2.1). */
  name: string;
  redirect: RedirectRule;
  authMethods: readonly ClientAuthMethod[];
}

export class StaticClients {
  private readonly byId: Map<string, StaticClient>;

  constructor(clients: readonly StaticClient[]) {
    this.byId = new Map(clients.map((client) => [client.clientId, client]));
  }

  static fromConfig(config: Config): StaticClients {
    return new StaticClients([
      {
        clientId: config.CHAT_ASSISTANT_CLIENT_ID,
        name: config.CHAT_ASSISTANT_NAME,
        redirect: { kind: 'exact', uris: config.CHAT_ASSISTANT_REDIRECT_URIS },
        authMethods: ['none', 'client_secret_post', 'client_secret_basic'],
      },
      {
        clientId: config.SECOND_ASSISTANT_CLIENT_ID,
        name: config.SECOND_ASSISTANT_NAME,
        redirect: { kind: 'prefix', prefix: config.SECOND_ASSISTANT_REDIRECT_PREFIX },
        // spec 5.3 rule 3: token endpoint authentication method none.
        authMethods: ['none'],
      },
    ]);
  }

  find(clientId: unknown): StaticClient | undefined {
    return typeof clientId === 'string' ? this.byId.get(clientId) : undefined;
  }

  acceptsRedirect(client: StaticClient, redirectUri: unknown): redirectUri is string {
    return matchesRedirectRule(client.redirect, redirectUri);
  }

  /** Every method some client uses, for the metadata. */
  authMethods(): ClientAuthMethod[] {
    const used = new Set([...this.byId.values()].flatMap((client) => client.authMethods));
    return CLIENT_AUTH_METHODS.filter((method) => used.has(method));
  }
}
