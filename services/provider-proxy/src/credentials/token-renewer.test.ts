import type { ConnectionCredentials, ProviderAdapter, RenewOutcome } from '../adapters/provider-adapter';
import { QpsGuard } from '../limits/qps-guard';
import type { CredentialsWrite } from '@gateway/store';
import type { ConnectionLookup, ConnectionSource } from './connection.source';
import { CredentialCache } from './credential.cache';
import { LocalRenewalLease, type RenewalLease } from './renewal-lease';
import { TokenRenewer } from './token-renewer';

let now = 1_000_000;
const iso = (ms: number) => new Date(ms).toISOString();

class StoreSource implements ConnectionSource {
  lookup_: ConnectionLookup;
  writes: ConnectionCredentials[] = [];
  /** Writes that throw (a database outage) before one succeeds. */
  failingWrites = 0;
  constructor(credentials: ConnectionCredentials) {
    this.lookup_ = { found: true, provider: 'video-shop', active: true, credentials };
  }
  async lookup(): Promise<ConnectionLookup> {
    return this.lookup_;
  }
  async store(
    _accountId: string,
    renewedFrom: ConnectionCredentials,
    credentials: ConnectionCredentials,
  ): Promise<CredentialsWrite> {
    if (this.failingWrites > 0) {
      this.failingWrites -= 1;
      throw new Error('MongoServerSelectionError');
    }
    if (!this.lookup_.found || !this.lookup_.active) return 'inactive';
    if (this.lookup_.credentials.access_token !== renewedFrom.access_token) return 'superseded';
    this.writes.push(credentials);
    this.lookup_ = { ...this.lookup_, credentials };
    return 'stored';
  }
  /** The customer grants again in the portal. */
  regrant(credentials: ConnectionCredentials): void {
    this.lookup_ = { found: true, provider: 'video-shop', active: true, credentials };
  }
  async markNeedsRegrant(_accountId: string, refused: ConnectionCredentials): Promise<CredentialsWrite> {
    if (!this.lookup_.found || !this.lookup_.active) return 'inactive';
    if (this.lookup_.credentials.access_token !== refused.access_token) return 'superseded';
    this.lookup_ = { found: true, provider: 'video-shop', active: false, status: 'needs_regrant' };
    return 'stored';
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
  const renewer = new TokenRenewer({ source, cache, lease, now: () => now, pollMs: 1, storeRetryMs: 1 });
  return { source, cache, renewer };
}

const request = (a: ProviderAdapter, seen: ConnectionCredentials, refused = false, stopWaiting = neverStops()) => ({
  accountId: 'acct_1',
  adapter: a,
  seen,
  refused,
  deadline: now + 1_000,
  stopWaiting,
});

function neverStops(): AbortSignal {
  return new AbortController().signal;
}

/** A lease another replica holds. */
const heldElsewhere: RenewalLease = {
  acquire: async () => false,
  extend: async () => false,
  release: async () => undefined,
};

/** A platform answer that arrives when the test says so. */
function heldAnswer() {
  let answer: (outcome: RenewOutcome) => void = () => undefined;
  let sent: () => void = () => undefined;
  const isSent = new Promise<void>((resolve) => (sent = resolve));
  const outcome = new Promise<RenewOutcome>((resolve) => (answer = resolve));
  return { isSent, answer, renew: () => (sent(), outcome) };
}

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
    await source.store('acct_1', due, fresh);
    source.writes = [];
    const a = adapter(async () => {
      throw new Error('must not renew');
    });
    expect(await renewer.renew(request(a, due, true))).toEqual({ ok: true, credentials: fresh, renewed: false });
  });

  it('does not wait for another replica while the tokens it holds still work', async () => {
    const { renewer } = setup(due, heldElsewhere);
    const a = adapter(async () => ({ ok: true, credentials: fresh }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'unavailable' });
  });

  it("waits for another replica's renewal when the platform refused the token, and takes what it stored", async () => {
    const { source, renewer } = setup(due, heldElsewhere);
    const a = adapter(async () => {
      throw new Error('must not renew');
    });
    const waiting = renewer.renew(request(a, due, true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await source.store('acct_1', due, fresh);
    expect(await waiting).toEqual({ ok: true, credentials: fresh, renewed: false });
  });

  it('keeps a re-grant made during a renewal, and answers with its tokens', async () => {
    const { source, cache, renewer } = setup(due);
    const regranted: ConnectionCredentials = { ...fresh, access_token: 'granted', refresh_token: 'granted-rt' };
    const a = adapter(async () => {
      source.regrant(regranted);
      return { ok: true, credentials: fresh };
    });
    expect(await renewer.renew(request(a, due))).toEqual({ ok: true, credentials: regranted, renewed: false });
    expect(source.writes).toEqual([]);
    expect(await source.lookup()).toMatchObject({ active: true, credentials: regranted });
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, credentials: regranted });
  });

  it('does not mark a connection needs_regrant when the refused grant was replaced by a re-grant meanwhile', async () => {
    const { source, renewer } = setup(due);
    const regranted: ConnectionCredentials = { ...fresh, access_token: 'granted', refresh_token: 'granted-rt' };
    const a = adapter(async () => {
      source.regrant(regranted);
      return { ok: false, reason: 'refused', detail: 'the old grant was cancelled' };
    });
    expect(await renewer.renew(request(a, due))).toEqual({ ok: true, credentials: regranted, renewed: false });
    expect(await source.lookup()).toMatchObject({ active: true, credentials: regranted });
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

  it('stores the new pair of a refresh whose caller stopped waiting, and the next request uses it', async () => {
    const { source, cache, renewer } = setup(due);
    const platform = heldAnswer();
    const a = adapter(platform.renew);
    const caller = new AbortController();
    const waiting = renewer.renew(request(a, due, false, caller.signal));
    await platform.isSent;
    caller.abort();
    expect(await waiting).toMatchObject({ ok: false, reason: 'unavailable' });
    // The platform has spent r1 and answers after the caller left.
    platform.answer({ ok: true, credentials: fresh });
    await renewer.drain();
    expect(source.writes).toEqual([fresh]);
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, credentials: fresh });
    const next = adapter(async () => {
      throw new Error('must not renew again');
    });
    expect(await renewer.renew(request(next, due))).toEqual({ ok: true, credentials: fresh, renewed: false });
  });

  it('keeps the grant when storing the new pair fails twice, extending the lease before each retry', async () => {
    const lease = new LocalRenewalLease(() => now);
    const extend = jest.spyOn(lease, 'extend');
    const { source, renewer } = setup(due, lease);
    source.failingWrites = 2;
    let calls = 0;
    const a = adapter(async () => {
      calls += 1;
      return { ok: true, credentials: fresh };
    });
    expect(await renewer.renew(request(a, due))).toEqual({ ok: true, credentials: fresh, renewed: true });
    expect(calls).toBe(1);
    expect(source.writes).toEqual([fresh]);
    expect(source.lookup_).toMatchObject({ active: true, credentials: fresh });
    expect(extend).toHaveBeenCalledTimes(2);
  });

  it('stops retrying the write once another replica holds the lease', async () => {
    const lease = new LocalRenewalLease(() => now);
    jest.spyOn(lease, 'extend').mockResolvedValue(false);
    const { source, renewer } = setup(due, lease);
    source.failingWrites = 1;
    const a = adapter(async () => ({ ok: true, credentials: fresh }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(source.writes).toEqual([]);
  });

  it('gives the new pair up after the last write attempt fails, and says so', async () => {
    const { source, renewer } = setup(due);
    source.failingWrites = 5;
    const a = adapter(async () => ({ ok: true, credentials: fresh }));
    expect(await renewer.renew(request(a, due))).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(source.writes).toEqual([]);
    expect(source.failingWrites).toBe(0);
  });
});
