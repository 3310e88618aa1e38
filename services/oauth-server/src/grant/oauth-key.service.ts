import type { KeyLifecycle } from '@gateway/decisions';
import type { ApiKeyRecord, CustomerRecord, Store } from '@gateway/store';
import type { StaticClient } from '../clients/static-clients';

/** A connection as the consent page lists it. */
export interface GrantedConnection {
  provider: string;
  account_id: string;
}

/**
 * The key an assistant's consent stands for (spec 5.3 rule 6): "<assistant name> (OAuth)", source oauth, bound to
 * the client and the customer. It is the grant itself: the portal shows it and revoking it there ends the
 * assistant's MCP access through the key's actor. One per customer and assistant: a later consent reuses the
 * active key, so reconnecting never piles up keys; after a revoke the next consent makes a new one.
 */
export class OAuthKeyService {
  /** Serialises consents of one customer and client in this process, so two tabs cannot make two keys. */
  private readonly pending = new Map<string, Promise<ApiKeyRecord>>();

  constructor(
    private readonly store: Pick<Store, 'apiKeys' | 'plans' | 'connections'>,
    private readonly lifecycle: Pick<KeyLifecycle, 'created'>,
  ) {}

  static keyName(client: StaticClient): string {
    return `${client.name} (OAuth)`;
  }

  /** What a new key would get: the plan's providers and the customer's connections that are not revoked. */
  async scopeOf(customer: CustomerRecord): Promise<{ providers: string[]; connections: GrantedConnection[] }> {
    const plan = await this.store.plans.findByName(customer.plan);
    const providers = plan?.providers ?? [];
    const connections = (await this.store.connections.listByCustomer(customer.customer_id))
      .filter((connection) => connection.status !== 'revoked')
      .map((connection) => ({ provider: connection.provider, account_id: connection.account_id }));
    return { providers, connections };
  }

  /** The customer's active OAuth key for this client, if any. */
  async existing(customerId: string, client: StaticClient): Promise<ApiKeyRecord | null> {
    const keys = await this.store.apiKeys.listByCustomer(customerId);
    const summary = keys.find(
      (key) =>
        key.source === 'oauth' &&
        key.status === 'active' &&
        key.oauth?.client_id === client.clientId &&
        key.oauth.subject === customerId,
    );
    return summary ? this.store.apiKeys.findByKeyId(summary.key_id) : null;
  }

  /**
   * Reuses the active key or creates one with every provider of the plan, following the customer's connections
   * (those of consent time, and any granted later). An existing key is left as the customer last set it in the portal: the portal is where keys are
   * edited, and a second writer of the same key document could lose a revoke on FerretDB (document-lock.ts).
   */
  async ensureKey(customer: CustomerRecord, client: StaticClient): Promise<ApiKeyRecord> {
    const lockKey = `${customer.customer_id}\u0000${client.clientId}`;
    const previous = this.pending.get(lockKey) ?? Promise.resolve(null);
    const next = previous
      .catch(() => null)
      .then(async () => {
        const existing = await this.existing(customer.customer_id, client);
        if (existing) return existing;
        const { providers, connections } = await this.scopeOf(customer);
        const created = await this.store.apiKeys.create({
          customer_id: customer.customer_id,
          name: OAuthKeyService.keyName(client),
          providers: providers as ApiKeyRecord['providers'],
          account_ids: connections.map((connection) => connection.account_id),
          // The assistant follows the customer's connections: one granted later works at once; the customer can
          // narrow the key in the portal, which stops the following (issue 15).
          follows_connections: true,
          source: 'oauth',
          oauth: { client_id: client.clientId, subject: customer.customer_id },
        });
        // Clears an "unknown key" verdict its actor may hold, so the first MCP request works at once.
        await this.lifecycle.created(created.key);
        return created.key;
      });
    this.pending.set(lockKey, next);
    const forget = () => {
      if (this.pending.get(lockKey) === next) this.pending.delete(lockKey);
    };
    next.then(forget, forget);
    return next;
  }
}
