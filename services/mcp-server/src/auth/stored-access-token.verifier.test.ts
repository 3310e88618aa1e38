import type { OAuthTokenRecord } from '@gateway/store';
import { StoredAccessTokenVerifier } from './stored-access-token.verifier';

const AUDIENCE = 'https://mcp.example.com/mcp';
const TOKEN = `dg_at_${'a'.repeat(43)}`;
const NOW = Date.parse('2026-11-01T00:00:00Z');

function record(overrides: Partial<OAuthTokenRecord> = {}): OAuthTokenRecord {
  return {
    kind: 'access',
    client_id: 'chat-assistant',
    customer_id: 'cus_1',
    key_hash: 'b'.repeat(64),
    resource: AUDIENCE,
    scopes: ['data:read'],
    family_id: 'fam_1',
    expires_at: new Date(NOW + 3_600_000),
    revoked_at: null,
    rotated_at: null,
    ...overrides,
  };
}

function verifierOf(found: OAuthTokenRecord | null, cacheMs = 0) {
  let now = NOW;
  const findToken = jest.fn(() => Promise.resolve(found));
  const verifier = new StoredAccessTokenVerifier({ findToken }, { cacheMs, now: () => now });
  return { verifier, findToken, advance: (ms: number) => (now += ms) };
}

describe('stored access-token verifier', () => {
  it('maps a live access token for this audience to its key', async () => {
    const { verifier } = verifierOf(record());
    expect(await verifier.verify(TOKEN, AUDIENCE)).toEqual({
      keyHash: 'b'.repeat(64),
      clientId: 'chat-assistant',
      scopes: ['data:read'],
      expiresAt: (NOW + 3_600_000) / 1000,
    });
  });

  it.each([
    ['another audience', record({ resource: 'https://other.example.com/mcp' })],
    ['an expired token', record({ expires_at: new Date(NOW - 1) })],
    ['a revoked token', record({ revoked_at: new Date(NOW - 1) })],
    ['a refresh token', record({ kind: 'refresh' })],
    ['an unknown token', null],
  ])('refuses %s', async (_why, found) => {
    expect(await verifierOf(found).verifier.verify(TOKEN, AUDIENCE)).toBeNull();
  });

  it('never looks up values that are not access tokens', async () => {
    const { verifier, findToken } = verifierOf(record());
    expect(await verifier.verify(`dg_rt_${'a'.repeat(43)}`, AUDIENCE)).toBeNull();
    expect(findToken).not.toHaveBeenCalled();
  });

  it('remembers an accepted token for the cache life only, and never for another audience', async () => {
    const { verifier, findToken, advance } = verifierOf(record(), 30_000);
    await verifier.verify(TOKEN, AUDIENCE);
    await verifier.verify(TOKEN, AUDIENCE);
    expect(findToken).toHaveBeenCalledTimes(1);
    expect(await verifier.verify(TOKEN, 'https://other.example.com/mcp')).toBeNull();
    advance(30_001);
    await verifier.verify(TOKEN, AUDIENCE);
    expect(findToken).toHaveBeenCalledTimes(2);
  });
});
