import { CredentialCache } from './credential.cache';
import type { ConnectionLookup, ConnectionSource } from './connection.source';

class FakeSource implements ConnectionSource {
  reads = 0;
  lookups = new Map<string, ConnectionLookup>();
  gate: Promise<void> = Promise.resolve();

  set(accountId: string, token: string, active = true, provider = 'video-ads'): void {
    this.lookups.set(
      accountId,
      active
        ? { found: true, provider, active, credentials: { access_token: token } }
        : { found: true, provider, active, status: 'revoked' },
    );
  }

  store = () => Promise.resolve('stored' as const);
  markNeedsRegrant = () => Promise.resolve('stored' as const);

  async lookup(accountId: string): Promise<ConnectionLookup> {
    this.reads += 1;
    const answer = this.lookups.get(accountId) ?? { found: false };
    await this.gate;
    return answer;
  }
}

describe('credential cache', () => {
  let now = 0;
  const options = { ttlMs: 1_000, maxEntries: 2, now: () => now };

  beforeEach(() => {
    now = 0;
  });

  it('serves a connection from memory until the TTL passes', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    const cache = new CredentialCache(source, options);
    expect(await cache.get('acct_1')).toEqual({
      ok: true,
      provider: 'video-ads',
      credentials: { access_token: 'token-1' },
      fromCache: false,
    });
    now = 799;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: true });
    now = 1_000;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: false });
    expect(source.reads).toBe(2);
  });

  it('answers a fresh entry at once, without a promise, and nothing it would have to read', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    const cache = new CredentialCache(source, options);
    expect(cache.fresh('acct_1')).toBeUndefined();
    await cache.get('acct_1');
    expect(cache.fresh('acct_1')).toEqual({
      ok: true,
      provider: 'video-ads',
      credentials: { access_token: 'token-1' },
      fromCache: true,
    });
    now = 1_000;
    expect(cache.fresh('acct_1')).toBeUndefined();
    expect(source.reads).toBe(1);
  });

  it('shares one read between concurrent misses', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    const cache = new CredentialCache(source, options);
    const results = Promise.all([cache.get('acct_1'), cache.get('acct_1'), cache.get('acct_1')]);
    open();
    expect((await results).every((result) => result.ok)).toBe(true);
    expect(source.reads).toBe(1);
  });

  it('does not cache missing or inactive connections', async () => {
    const source = new FakeSource();
    source.set('acct_2', 'token-2', false);
    const cache = new CredentialCache(source, options);
    expect(await cache.get('acct_1')).toEqual({ ok: false, reason: 'not_found' });
    expect(await cache.get('acct_2')).toEqual({ ok: false, reason: 'inactive' });
    source.set('acct_2', 'token-3');
    expect(await cache.get('acct_2')).toMatchObject({ ok: true, credentials: { access_token: 'token-3' } });
  });

  it('drops an entry only while it still holds the refused token', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'old');
    const cache = new CredentialCache(source, options);
    await cache.get('acct_1');
    source.set('acct_1', 'new');
    cache.invalidate('acct_1', 'other');
    expect(await cache.get('acct_1')).toMatchObject({ credentials: { access_token: 'old' }, fromCache: true });
    cache.invalidate('acct_1', 'old');
    expect(await cache.get('acct_1')).toMatchObject({ credentials: { access_token: 'new' }, fromCache: false });
    // A second request that saw "old" refused joins the new credentials instead of dropping them.
    cache.invalidate('acct_1', 'old');
    expect(await cache.get('acct_1')).toMatchObject({ credentials: { access_token: 'new' }, fromCache: true });
  });

  it('does not store what a load read before a full invalidation', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'old');
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    const cache = new CredentialCache(source, options);
    const early = cache.get('acct_1');
    cache.invalidate('acct_1');
    open();
    expect(await early).toMatchObject({ ok: true, credentials: { access_token: 'old' } });
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries connections, dropping the oldest load', async () => {
    const source = new FakeSource();
    for (const id of ['a', 'b', 'c']) source.set(id, `token-${id}`);
    const cache = new CredentialCache(source, options);
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
    expect(await cache.get('a')).toMatchObject({ fromCache: false });
  });

  it('reads an entry still in use again in the background late in its TTL, once, and serves the new read', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    const cache = new CredentialCache(source, options);
    await cache.get('acct_1');
    source.set('acct_1', 'token-2');
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    now = 800;
    // Answered at once from memory while the read runs; more requests in the meantime start no second read.
    const during = await Promise.all([cache.get('acct_1'), cache.get('acct_1'), cache.get('acct_1')]);
    expect(during.map((result) => result.ok && result.credentials.access_token)).toEqual([
      'token-1',
      'token-1',
      'token-1',
    ]);
    expect(source.reads).toBe(2);
    open();
    await flushPromises();
    now = 1_500; // past the first entry's TTL, within the background read's
    expect(await cache.get('acct_1')).toMatchObject({ fromCache: true, credentials: { access_token: 'token-2' } });
    expect(source.reads).toBe(2);
  });

  it('ends an entry when its background read finds the connection revoked', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    const cache = new CredentialCache(source, options);
    await cache.get('acct_1');
    source.set('acct_1', 'token-1', false);
    now = 900;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: true });
    await flushPromises();
    expect(await cache.get('acct_1')).toEqual({ ok: false, reason: 'inactive' });
  });

  it('serves an entry whose background read failed until its TTL, without reading again before then', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'token-1');
    const cache = new CredentialCache(source, options);
    await cache.get('acct_1');
    const lookup = source.lookup.bind(source);
    source.lookup = () => {
      source.reads += 1;
      return Promise.reject(new Error('store down'));
    };
    now = 850;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: true });
    await flushPromises();
    now = 999;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: true });
    expect(source.reads).toBe(2);
    now = 1_000;
    await expect(cache.get('acct_1')).rejects.toThrow('store down');
    source.lookup = lookup;
    expect(await cache.get('acct_1')).toMatchObject({ ok: true, fromCache: false });
  });

  it('does not store what a background read read before an invalidation', async () => {
    const source = new FakeSource();
    source.set('acct_1', 'old');
    const cache = new CredentialCache(source, options);
    await cache.get('acct_1');
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    now = 800;
    await cache.get('acct_1');
    cache.invalidate('acct_1');
    source.set('acct_1', 'new');
    open();
    await flushPromises();
    expect(cache.size).toBe(0);
    expect(await cache.get('acct_1')).toMatchObject({ fromCache: false, credentials: { access_token: 'new' } });
  });

  it('caches nothing when the source fails', async () => {
    const source = new FakeSource();
    source.lookup = () => Promise.reject(new Error('store down'));
    const cache = new CredentialCache(source, options);
    await expect(cache.get('acct_1')).rejects.toThrow('store down');
    expect(cache.size).toBe(0);
  });
});

function flushPromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
