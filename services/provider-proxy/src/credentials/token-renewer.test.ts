import type { ConnectionCredentials, ProviderAdapter, RenewOutcome } from '../adapters/provider-adapter';
import { QpsGuard } from '../limits/qps-guard';
import type { ConnectionLookup, ConnectionSource } from './connection.source';
import { CredentialCache } from './credential.cache';
import { LocalRenewalLease, type RenewalLease } from './renewal-lease';
import { TokenRenewer } from './token-renewer';

let now = 1_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

class StoreSource implements ConnectionSource {
  lookup_: ConnectionLookup;
  writes: ConnectionCredentials[] = [];
  constructor(credentials: ConnectionCredentials) {
    this.lookup_ = { found: true, provider: 'video-shop', active: true, credentials };
  }
  async lookup(): Promise<ConnectionLookup> {
    return this.lookup_;
  }
  async store(_accountId: string, credentials: ConnectionCredentials): Promise<boolean> {
    this.writes.push(credentials);
    if (this.lookup_.found && this.lookup_.active) this.lookup_ = { ...this.lookup_, credentials };
    return true;
  }
  async markNeedsRegrant(): Promise<void> {
    this.lookup_ = { found: true, provider: 'video-shop', active: false, status: 'needs_regrant' };
  }
}

function adapter(renew: (c: ConnectionCredentials) => Promise<RenewOutcome>): ProviderAdapter {
  return {
    provider: 'video-shop',
    guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
    responseHeaders: [],
    tokens: { kind: 'refreshable', renewAheadMs: 60_000 },
    prepare: () => {
      throw new Error('not used');
    },
    isTokenError: () => false,
    renew: (credentials) => renew(credentials),
  };
}

function setup(credentials: ConnectionCredentials, lease: RenewalLease = new LocalRenewalLease()) {
  const source = new StoreSource(credentials);
  const cache = new CredentialCache(source, { ttlMs: 1_000, maxEntries: 10, now: () => now });
  const renewer = new TokenRenewer({ source, cache, lease, now: () => now, pollMs: 1 });
  return { source, cache, renewer };
}

const request = (a: ProviderAdapter, seen: ConnectionCredentials, refused = false) => ({
  accountId: 'acct_1',
  adapter: a,
  seen,
  refused,
  deadline: now + 1_000,
  signal: new AbortController().signal,
});

const due = { access_token: 'old', refresh_token: 'r1', access_token_expires_at: iso(now + 30_000) };
const fresh = { access_token: 'new', refresh_token: 'r2', access_token_expires_at: iso(now + 3_600_000) };

describe('token renewer', () => {
  beforeEach(() => {
    now = 1_000_000;
  });

  it('renews tokens close to expiry once for concurrent requests, and stores them before handing them out', async () => {
    const { source, renewer } = setup(due);
    let calls = 0;
    const a = adapter(async () => {
      calls += 1;
      expect(source.writes).toHaveLength(0);
      return { ok: true, credentials: fresh };
    });
    expect(renewer.isDue(a, due)).toBe(true);
    expect(renewer.isDue(a, fresh)).toBe(false);
    const results = await Promise.all([renewer.renew(request(a, due)), renewer.renew(request(a, due))]);
    expect(calls).toBe(1);
    expect(results.map((r) => r.ok && r.credentials.access_token)).toEqual(['new', 'new']);
    expect(source.writes).toEqual([fresh]);
  });

  it('uses tokens another renewal already stored instead of renewing again', async () => {
    const { source, renewer } = setup(due);
    await source.store('acct_1', fresh);
    source.writes = [];
    const a = adapter(async () => {
      throw new Error('must not renew');
    });
    expect(await renewer.renew(request(a, due, true))).toEqual({ ok: true, credentials: fresh, renewed: false });
  });

  it('does not wait for another replica while the tokens it holds still work', async () => {
    const held: RenewalLease = { acquire: async () => false, release: async () => undefined };
    const { renewer } = setup(due, held);
    const a = adapter(async () => ({ ok: true, credentials: fresh }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'unavailable' });
  });

  it("waits for another replica's renewal when the platform refused the token, and takes what it stored", async () => {
    const held: RenewalLease = { acquire: async () => false, release: async () => undefined };
    const { source, renewer } = setup(due, held);
    const a = adapter(async () => {
      throw new Error('must not renew');
    });
    const waiting = renewer.renew(request(a, due, true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await source.store('acct_1', fresh);
    expect(await waiting).toEqual({ ok: true, credentials: fresh, renewed: false });
  });

  it('marks the connection needs_regrant when the platform refuses the renewal', async () => {
    const { source, renewer } = setup(due);
    const a = adapter(async () => ({ ok: false, reason: 'refused', detail: 'dead' }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'needs_regrant' });
    expect(source.lookup_).toMatchObject({ active: false, status: 'needs_regrant' });
  });

  it('keeps the connection when the platform is only unavailable', async () => {
    const { source, renewer } = setup(due);
    const a = adapter(async () => ({ ok: false, reason: 'unavailable', detail: 'down' }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(source.lookup_).toMatchObject({ active: true });
  });
});
