import { authorizationServerMetadataUrl, CachedMetadata } from './authorization-server-metadata';

const ISSUER = 'https://auth.example.com';

function fakeFetch(documents: unknown[]): { fetchFn: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const fetchFn = (async (url: string) => {
    calls.push(url);
    const document = documents.shift();
    if (document instanceof Error) throw document;
    return new Response(JSON.stringify(document), { headers: { 'Content-Type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetchFn, calls };
}

describe('authorization server metadata at the MCP origin', () => {
  it('inserts the well-known path before the issuer path (RFC 8414 section 3.1)', () => {
    const path = '/.well-known/oauth-authorization-server';
    expect(authorizationServerMetadataUrl(ISSUER, path)).toBe(`${ISSUER}${path}`);
    expect(authorizationServerMetadataUrl(`${ISSUER}/`, path)).toBe(`${ISSUER}${path}`);
    expect(authorizationServerMetadataUrl(`${ISSUER}/tenant`, path)).toBe(`${ISSUER}${path}/tenant`);
  });

  it('keeps a fetched document until its time is up, then fetches it again', async () => {
    let now = 0;
    const { fetchFn, calls } = fakeFetch([
      { issuer: ISSUER, n: 1 },
      { issuer: ISSUER, n: 2 },
    ]);
    const source = new CachedMetadata({
      issuer: ISSUER,
      url: 'http://oauth:8080/x',
      ttlMs: 1000,
      timeoutMs: 100,
      fetchFn,
      now: () => now,
    });
    expect(await source.get()).toEqual({ issuer: ISSUER, n: 1 });
    now = 999;
    expect(await source.get()).toEqual({ issuer: ISSUER, n: 1 });
    now = 1000;
    expect(await source.get()).toEqual({ issuer: ISSUER, n: 2 });
    expect(calls).toEqual(['http://oauth:8080/x', 'http://oauth:8080/x']);
  });

  it('refuses a document that names another issuer, and failed fetches are not kept', async () => {
    const { fetchFn } = fakeFetch([{ issuer: 'https://evil.example' }, new Error('ECONNREFUSED'), { issuer: ISSUER }]);
    const source = new CachedMetadata({
      issuer: ISSUER,
      url: 'http://oauth:8080/x',
      ttlMs: 1000,
      timeoutMs: 100,
      fetchFn,
    });
    await expect(source.get()).rejects.toThrow('is not');
    await expect(source.get()).rejects.toThrow('ECONNREFUSED');
    expect(await source.get()).toEqual({ issuer: ISSUER });
  });
});
