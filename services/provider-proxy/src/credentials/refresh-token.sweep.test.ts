import type { ConnectionCredentials, ProviderAdapter, RenewOutcome } from '../adapters/provider-adapter';
import { QpsGuard } from '../limits/qps-guard';
import type { CredentialsWrite } from '@gateway/store';
import type { ConnectionLister, ConnectionLookup, ConnectionSource } from './connection.source';
import { CredentialCache } from './credential.cache';
import { RefreshTokenSweep } from './refresh-token.sweep';
import { LocalRenewalLease } from './renewal-lease';
import { TokenRenewer } from './token-renewer';

const DAY = 86_400_000;
const MARGIN_MS = 7 * DAY;
const INTERVAL_MS = 3_600_000;
let now = 1_000_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** One store shared by every replica: connections by account id, in id order. */
class SharedStore implements ConnectionSource, ConnectionLister {
  readonly connections = new Map<string, ConnectionCredentials>();

  async lookup(accountId: string): Promise<ConnectionLookup> {
    const credentials = this.connections.get(accountId);
    return credentials ? { found: true, provider: 'marketplace', active: true, credentials } : { found: false };
  }
  async store(
    accountId: string,
    renewedFrom: ConnectionCredentials,
    credentials: ConnectionCredentials,
  ): Promise<CredentialsWrite> {
    const current = this.connections.get(accountId);
    if (!current) return 'inactive';
    if (current.refresh_token !== renewedFrom.refresh_token) return 'superseded';
    this.connections.set(accountId, credentials);
    return 'stored';
  }
  async markNeedsRegrant(accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite> {
    const current = this.connections.get(accountId);
    if (!current) return 'inactive';
    if (current.refresh_token !== refused.refresh_token) return 'superseded';
    this.connections.delete(accountId);
    return 'stored';
  }
  /** As the store: the expiry is read in the clear, and a connection without one is listed (only opening tells). */
  async listRefreshDue(_providers: readonly string[], dueBy: Date, after: string | undefined, limit: number) {
    const due = (credentials: ConnectionCredentials) =>
      credentials.refresh_token_expires_at === undefined ||
      Date.parse(credentials.refresh_token_expires_at) <= dueBy.getTime();
    return [...this.connections]
      .filter(([, credentials]) => due(credentials))
      .map(([accountId]) => accountId)
      .sort()
      .filter((id) => after === undefined || id > after)
      .slice(0, limit)
      .map((accountId) => ({ accountId, provider: 'marketplace' }));
  }
}

/** The platform: single-use refresh tokens, 30-day lifetime (here as short as the test likes). */
function platform(lifetimeMs: number) {
  const spent = new Set<string>();
  const refreshes: string[] = [];
  let serial = 0;
  const adapter: ProviderAdapter = {
    provider: 'marketplace',
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    responseHeaders: [],
    tokens: { kind: 'refreshable', renewAheadMs: 600_000 },
    prepare: () => {
      throw new Error('not used');
    },
    isTokenError: () => false,
    renew: async (credentials): Promise<RenewOutcome> => {
      const used = credentials.refresh_token!;
      refreshes.push(used);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (spent.has(used)) return { ok: false, reason: 'refused', detail: 'error_param' };
      spent.add(used);
      serial += 1;
      return {
        ok: true,
        credentials: {
          ...credentials,
          access_token: `a${serial}`,
          refresh_token: `r${serial}`,
          access_token_expires_at: iso(now + 4 * 3_600_000),
          refresh_token_expires_at: iso(now + lifetimeMs),
        },
      };
    },
  };
  return { adapter, refreshes };
}

function replica(store: SharedStore, lease: LocalRenewalLease, adapter: ProviderAdapter) {
  const cache = new CredentialCache(store, { ttlMs: 1_000, maxEntries: 10, now: () => now });
  const renewer = new TokenRenewer({ source: store, cache, lease, now: () => now });
  return new RefreshTokenSweep({
    lister: store,
    source: store,
    renewer,
    lease,
    adapters: [adapter],
    marginMs: MARGIN_MS,
    intervalMs: INTERVAL_MS,
    batch: 2,
    now: () => now,
  });
}

const connection = (refresh: string, refreshLeftMs: number): ConnectionCredentials => ({
  access_token: `access-of-${refresh}`,
  refresh_token: refresh,
  access_token_expires_at: iso(now + 3 * 3_600_000),
  refresh_token_expires_at: iso(now + refreshLeftMs),
  attributes: { shop_id: '1' },
});

describe('refresh-token sweep', () => {
  it('renews an unused connection whose refresh token expires soon exactly once across two replicas', async () => {
    const store = new SharedStore();
    // NATS KV stands in as one lease table shared by both replicas.
    const lease = new LocalRenewalLease(() => now);
    const { adapter, refreshes } = platform(30 * DAY);
    store.connections.set('acct_idle', connection('r-idle', 2 * DAY));
    store.connections.set('acct_busy', connection('r-busy', 20 * DAY));
    const [a, b] = [replica(store, lease, adapter), replica(store, lease, adapter)];

    const reports = await Promise.all([a.scan(), b.scan()]);
    expect(reports.filter((report) => report.swept)).toHaveLength(1);
    expect(refreshes).toEqual(['r-idle']);
    expect(store.connections.get('acct_idle')).toMatchObject({
      refresh_token: 'r1',
      refresh_token_expires_at: iso(now + 30 * DAY),
    });
    expect(store.connections.get('acct_busy')?.refresh_token).toBe('r-busy');

    // The next interval, on the other replica: nothing is due any more, and nothing is opened to find that out.
    now += INTERVAL_MS;
    expect(await b.scan()).toMatchObject({ swept: true, examined: 0, renewed: 0, failed: 0 });
    expect(refreshes).toEqual(['r-idle']);
  });

  it('keeps short-lived grants alive with no traffic, one scan per interval', async () => {
    const store = new SharedStore();
    const lease = new LocalRenewalLease(() => now);
    // Refresh tokens that live 10 days, renewed by the first scan that finds less than 7 left: every 73 hours.
    const { adapter, refreshes } = platform(10 * DAY);
    store.connections.set('acct_1', connection('r0', 10 * DAY));
    const sweep = replica(store, lease, adapter);
    for (let hour = 0; hour < 24 * 30; hour += 1) {
      now += INTERVAL_MS;
      await sweep.scan();
      const left = Date.parse(store.connections.get('acct_1')!.refresh_token_expires_at!) - now;
      expect(left).toBeGreaterThan(MARGIN_MS - INTERVAL_MS);
    }
    expect(refreshes).toHaveLength(Math.floor((24 * 30) / 73));
    expect(new Set(refreshes).size).toBe(refreshes.length);
  });

  it('asks the store for the connections due only, by the refresh token expiry the store keeps in the clear', async () => {
    const store = new SharedStore();
    const lease = new LocalRenewalLease(() => now);
    const { adapter, refreshes } = platform(30 * DAY);
    for (let i = 0; i < 50; i++) store.connections.set(`acct_fresh_${i}`, connection(`r-fresh-${i}`, 20 * DAY));
    store.connections.set('acct_due', connection('r-due', DAY));
    const asked: Date[] = [];
    const listRefreshDue = store.listRefreshDue.bind(store);
    store.listRefreshDue = (providers, dueBy, after, limit) => {
      asked.push(dueBy);
      return listRefreshDue(providers, dueBy, after, limit);
    };

    expect(await replica(store, lease, adapter).scan()).toMatchObject({ examined: 1, renewed: 1 });
    expect(refreshes).toEqual(['r-due']);
    expect(asked.map((dueBy) => dueBy.getTime())).toEqual([now + MARGIN_MS]);
  });

  it('renews at most one batch per scan and leaves the rest to the next one', async () => {
    const store = new SharedStore();
    const lease = new LocalRenewalLease(() => now);
    const { adapter, refreshes } = platform(30 * DAY);
    for (const id of ['acct_a', 'acct_b', 'acct_c', 'acct_d', 'acct_e']) store.connections.set(id, connection(id, DAY));
    const sweep = replica(store, lease, adapter);
    expect(await sweep.scan()).toMatchObject({ renewed: 2 });
    now += INTERVAL_MS;
    expect(await sweep.scan()).toMatchObject({ renewed: 2 });
    now += INTERVAL_MS;
    expect(await sweep.scan()).toMatchObject({ renewed: 1 });
    expect(refreshes.sort()).toEqual(['acct_a', 'acct_b', 'acct_c', 'acct_d', 'acct_e']);
  });
});
