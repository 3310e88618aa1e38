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
  | '_id'
  | 'key_id'
  | 'customer_id'
  | 'status'
  | 'source'
  | 'providers'
  | 'account_ids'
  | 'ip_allowlist'
  | 'follows_connections'
>;

const HASH_PATTERN = /^[0-9a-f]{64}$/;

type ConnectionFields = Pick<ConnectionDocument, '_id' | 'customer_id' | 'provider' | 'status' | 'created_at'>;

type CustomerFields = Pick<CustomerDocument, '_id' | 'plan'>;

interface LoadedConnections {
  /** Every connection loaded for the batch, named by a key or followed. */
  byId: Map<string, ConnectionFields>;
  /** Per customer with following keys: its connections that count, oldest first. */
  followedOf: Map<string, ConnectionFields[]>;
}

/** A following key sees the connections that count against the allowance; a revoked one is gone for it. */
const FOLLOWED_STATUSES: readonly ConnectionStatus[] = ['active', 'needs_regrant'];

/**
 * Loads keys joined with their plans and connections in three round trips, whatever their number: the keys by
 * their hashes, then their customers and connections, then the customers' plans. Each step is an `_id` lookup
 * (findByIds): one `{ _id }` query per document up to a few, one `_id: { $in }` query beyond, so a burst of keys
 * due together (a new owner's first requests, refreshes after a pause) costs a handful of queries, not four a key.
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
    const [load] = (await this.loadDecisionRecords([hash])).values();
    if (load!.status === 'rejected') throw load!.reason;
    return load!.value;
  }

  /**
   * One outcome per distinct hash, each as loadDecisionRecord would settle: a key whose customer or plan is missing
   * is rejected alone, never its neighbours. A failed query rejects the whole call.
   */
  async loadDecisionRecords(
    hashes: readonly string[],
  ): Promise<Map<string, PromiseSettledResult<KeyDecisionRecord | null>>> {
    const outcomes = new Map<string, PromiseSettledResult<KeyDecisionRecord | null>>();
    for (const hash of hashes) outcomes.set(hash, { status: 'fulfilled', value: null });
    const wellFormed = [...outcomes.keys()].filter((hash) => typeof hash === 'string' && HASH_PATTERN.test(hash));
    const keys = await findByIds<ApiKeyDocument, KeyFields>(this.keys, wellFormed, KEY_PROJECTION);
    if (keys.length === 0) return outcomes;

    const [customers, connections] = await Promise.all([
      findByIds<CustomerDocument, CustomerFields>(
        this.customers,
        keys.map((key) => key.customer_id),
        { plan: 1 },
      ),
      this.connectionsOf(keys),
    ]);
    const planOf = new Map(customers.map((customer) => [customer._id, customer.plan] as const));
    const planDocs = await findByIds<PlanDocument, Plan & { _id: string }>(this.plans, [...planOf.values()], {});
    const plans = new Map(planDocs.map((doc) => [doc._id, toPlan(doc)] as const));

    for (const key of keys) {
      const planName = planOf.get(key.customer_id);
      const plan = planName === undefined ? undefined : plans.get(planName);
      outcomes.set(
        key._id,
        planName === undefined
          ? rejected(`key ${key.key_id} has no customer ${key.customer_id}`)
          : plan === undefined
            ? rejected(`plan ${planName} of ${key.customer_id} is missing`)
            : { status: 'fulfilled', value: decisionRecord(key, plan, connections) },
      );
    }
    return outcomes;
  }

  /**
   * The connections the keys name, plus, for keys that follow connections, their customers' connections: read when
   * an actor loads a key (at first use, on every lifecycle.changed, on its periodic refresh), so a connection granted
   * later works on the next request once the portal has told the actor (issue 15). The followed ones are a query by
   * customer_id, which FerretDB runs by scanning connections: it happens per key load, never per request.
   */
  private async connectionsOf(keys: readonly KeyFields[]): Promise<LoadedConnections> {
    const named = keys.filter((key) => key.follows_connections !== true).flatMap((key) => key.account_ids);
    const followers = [
      ...new Set(keys.filter((key) => key.follows_connections === true).map((key) => key.customer_id)),
    ];
    const [byId, followed] = await Promise.all([
      findByIds<ConnectionDocument, ConnectionFields>(this.connections, named, CONNECTION_PROJECTION),
      followers.length === 0
        ? []
        : this.connections
            .find(
              {
                customer_id: followers.length === 1 ? followers[0] : { $in: followers },
                status: { $in: [...FOLLOWED_STATUSES] },
              },
              CONNECTION_PROJECTION,
            )
            .lean<ConnectionFields[]>(),
    ]);
    const loaded: LoadedConnections = { byId: new Map(), followedOf: new Map() };
    for (const connection of [...byId, ...followed]) loaded.byId.set(connection._id, connection);
    for (const connection of followed.sort(oldestFirst)) {
      const list = loaded.followedOf.get(connection.customer_id);
      if (list === undefined) loaded.followedOf.set(connection.customer_id, [connection]);
      else list.push(connection);
    }
    return loaded;
  }
}

const KEY_PROJECTION = {
  key_id: 1,
  customer_id: 1,
  status: 1,
  source: 1,
  providers: 1,
  account_ids: 1,
  ip_allowlist: 1,
  follows_connections: 1,
} as const;

const CONNECTION_PROJECTION = { customer_id: 1, provider: 1, status: 1, created_at: 1 } as const;

const oldestFirst = (a: ConnectionFields, b: ConnectionFields): number =>
  a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

const rejected = (message: string): PromiseRejectedResult => ({
  status: 'rejected',
  reason: new StoreError('integrity', message),
});

/** The key as the limiter sees it, from the connections loaded with it (those of other keys are left out). */
function decisionRecord(key: KeyFields, plan: Plan, loaded: LoadedConnections): KeyDecisionRecord {
  const providers = key.providers.filter((provider) => plan.providers.includes(provider));
  const accountIds =
    key.follows_connections === true
      ? (loaded.followedOf.get(key.customer_id) ?? []).filter((c) => providers.includes(c.provider)).map((c) => c._id)
      : key.account_ids;
  const ordered = accountIds.flatMap((id) => {
    const found = loaded.byId.get(id);
    // Only connections of the key's own customer count (spec 5.1 rule 3), whatever the key document says.
    return found === undefined || found.customer_id !== key.customer_id
      ? []
      : [{ account_id: id, provider: found.provider, status: found.status }];
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
