import type { Connection, Model } from 'mongoose';
import { apiKeyModel, type ApiKeyDocument, type ApiKeySource, type ApiKeyStatus } from './api-key.model';
import { connectionModel, type ConnectionDocument, type ConnectionStatus } from './connection.model';
import { customerModel, type CustomerDocument } from './customer.model';
import { findByIds } from './natural-ids';
import { planModel, type Plan, type PlanDocument } from './plan.model';
import { toPlan } from './plan.repository';
import type { ProviderId } from './providers';
import { StoreError } from './store-error';

export interface KeyDecisionConnection {
  account_id: string;
  provider: ProviderId;
  status: ConnectionStatus;
}

/** Everything the per-key limiter needs to decide on a request (docs/architecture.md, request flow). */
export interface KeyDecisionRecord {
  key_id: string;
  customer_id: string;
  status: ApiKeyStatus;
  source: ApiKeySource;
  /** The key's providers that its plan also allows (spec 5.1 rule 4). */
  providers: ProviderId[];
  /**
   * The key's connections that exist and belong to its customer, in the key's order (spec 5.1 rules 1-3). For a
   * key that follows connections: the customer's connections of these providers that are not revoked, oldest first.
   */
  account_ids: string[];
  connections: KeyDecisionConnection[];
  /** Normalised CIDRs; empty means no allowlist (spec 5.1 rule 5). */
  ip_allowlist: string[];
  plan: Plan;
}

type KeyFields = Pick<
  ApiKeyDocument,
  'key_id' | 'customer_id' | 'status' | 'source' | 'providers' | 'account_ids' | 'ip_allowlist' | 'follows_connections'
>;

const HASH_PATTERN = /^[0-9a-f]{64}$/;

type ConnectionFields = Pick<ConnectionDocument, '_id' | 'customer_id' | 'provider' | 'status'>;

/** A following key sees the connections that count against the allowance; a revoked one is gone for it. */
const FOLLOWED_STATUSES: readonly ConnectionStatus[] = ['active', 'needs_regrant'];

/**
 * Loads a key joined with its plan and connections in three round trips, each a lookup by `_id` (the key by its
 * hash, then its customer and connections, then the customer's plan): the only lookups FerretDB runs in SQLite
 * rather than by reading the whole collection (see natural-ids.ts).
 */
export class KeyDecisionLoader {
  private readonly keys: Model<ApiKeyDocument>;
  private readonly customers: Model<CustomerDocument>;
  private readonly plans: Model<PlanDocument>;
  private readonly connections: Model<ConnectionDocument>;

  constructor(connection: Connection) {
    this.keys = apiKeyModel(connection);
    this.customers = customerModel(connection);
    this.plans = planModel(connection);
    this.connections = connectionModel(connection);
  }

  /**
   * Null when no key has this hash. Revoked keys are returned (status tells the caller). Throws StoreError
   * 'integrity' when the key's customer or plan is missing: that is a data fault, not a caller mistake.
   */
  async loadDecisionRecord(hash: string): Promise<KeyDecisionRecord | null> {
    if (typeof hash !== 'string' || !HASH_PATTERN.test(hash)) return null;
    const key = await this.keys
      .findOne(
        { _id: hash },
        {
          key_id: 1,
          customer_id: 1,
          status: 1,
          source: 1,
          providers: 1,
          account_ids: 1,
          ip_allowlist: 1,
          follows_connections: 1,
        },
      )
      .lean<KeyFields>();
    if (key === null) return null;

    // One `_id` lookup per connection, in parallel: FerretDB does not run `_id: { $in }` in SQLite (natural-ids.ts).
    const [customer, connections] = await Promise.all([
      this.customers.findOne({ _id: key.customer_id }, { plan: 1 }).lean<Pick<CustomerDocument, 'plan'>>(),
      key.follows_connections === true
        ? this.followedConnections(key.customer_id)
        : findByIds<ConnectionDocument, ConnectionFields>(this.connections, key.account_ids, {
            customer_id: 1,
            provider: 1,
            status: 1,
          }),
    ]);
    if (customer === null) throw new StoreError('integrity', `key ${key.key_id} has no customer ${key.customer_id}`);
    const planDoc = await this.plans.findOne({ _id: customer.plan }).lean<Plan>();
    if (planDoc === null) throw new StoreError('integrity', `plan ${customer.plan} of ${key.customer_id} is missing`);
    const plan = toPlan(planDoc);

    // Only connections of the key's own customer count (spec 5.1 rule 3), whatever the key document says.
    const byAccount = new Map(
      connections.filter((c) => c.customer_id === key.customer_id).map((c) => [c._id, c] as const),
    );
    const providers = key.providers.filter((provider) => plan.providers.includes(provider));
    const accountIds =
      key.follows_connections === true
        ? connections.filter((c) => providers.includes(c.provider)).map((c) => c._id)
        : key.account_ids;
    const ordered = accountIds.flatMap((id) => {
      const found = byAccount.get(id);
      return found === undefined ? [] : [{ account_id: id, provider: found.provider, status: found.status }];
    });
    return {
      key_id: key.key_id,
      customer_id: key.customer_id,
      status: key.status,
      source: key.source,
      providers,
      account_ids: ordered.map((c) => c.account_id),
      connections: ordered,
      ip_allowlist: [...key.ip_allowlist],
      plan,
    };
  }

  /**
   * A following key's connections: read when its actor loads it (at first use and on every lifecycle.changed), so
   * a connection granted later works on the next request once the portal has told the actor (issue 15). A query by
   * customer_id, which FerretDB runs by scanning connections: it happens per key load, never per request.
   */
  private async followedConnections(customerId: string): Promise<ConnectionFields[]> {
    return this.connections
      .find(
        { customer_id: customerId, status: { $in: [...FOLLOWED_STATUSES] } },
        { customer_id: 1, provider: 1, status: 1 },
      )
      .sort({ created_at: 1 })
      .lean<ConnectionFields[]>();
  }
}
