import {
  ACCOUNT_ID_PREFIX,
  API_KEY_PREFIX,
  CUSTOMER_ID_PREFIX,
  hashApiKey,
  isWellFormedAccountId,
  isWellFormedApiKey,
  isWellFormedKeyId,
  newAccountId,
  newApiKeySecret,
  newCustomerId,
  newKeyId,
  randomBase62,
} from './ids';

const BASE62 = /^[0-9A-Za-z]*$/;

describe('ids', () => {
  it('draws base62 strings of the requested length', () => {
    for (const length of [0, 1, 8, 40, 500]) {
      const value = randomBase62(length);
      expect(value).toHaveLength(length);
      expect(value).toMatch(BASE62);
    }
  });

  it('uses every base62 character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(62 * 2000);
    for (const char of sample) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 2000 each; modulo bias on a byte would push 0-7 to about 2066 * 1.03 and the rest lower.
    // A chi-square over 61 degrees of freedom stays below 120 with overwhelming probability.
    const chiSquare = [...counts.values()].reduce((sum, count) => sum + (count - 2000) ** 2 / 2000, 0);
    expect(chiSquare).toBeLessThan(120);
  });

  it('builds keys, key ids, account ids and customer ids with their prefixes', () => {
    expect(newApiKeySecret()).toMatch(new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{40}$`));
    expect(newKeyId()).toMatch(new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{8}$`));
    expect(newAccountId()).toMatch(new RegExp(`^${ACCOUNT_ID_PREFIX}[0-9A-Za-z]{20}$`));
    expect(newCustomerId()).toMatch(new RegExp(`^${CUSTOMER_ID_PREFIX}[0-9A-Za-z]{16}$`));
  });

  it('never derives a key id from a secret', () => {
    const secret = newApiKeySecret();
    const keyId = newKeyId();
    expect(secret.startsWith(keyId)).toBe(false);
    expect(secret).not.toContain(keyId.slice(API_KEY_PREFIX.length));
  });

  it('hashes a key to lowercase hex SHA-256', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey(newApiKeySecret())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts only exactly formed keys before any lookup', () => {
    const secret = newApiKeySecret();
    expect(isWellFormedApiKey(secret)).toBe(true);
    expect(isWellFormedApiKey(`${secret}x`)).toBe(false);
    expect(isWellFormedApiKey(secret.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(secret.replace('dg_live_', 'dg_test_'))).toBe(false);
    expect(isWellFormedApiKey(`${secret.slice(0, -1)}-`)).toBe(false);
    expect(isWellFormedApiKey(` ${secret}`)).toBe(false);
    expect(isWellFormedApiKey(`${secret}\n`)).toBe(false);
    expect(isWellFormedApiKey(newKeyId())).toBe(false);
    expect(isWellFormedApiKey(undefined)).toBe(false);
    expect(isWellFormedApiKey({ $ne: null })).toBe(false);
  });

  it('recognises key ids and account ids by their exact format', () => {
    expect(isWellFormedKeyId(newKeyId())).toBe(true);
    expect(isWellFormedKeyId(newApiKeySecret())).toBe(false);
    expect(isWellFormedAccountId(newAccountId())).toBe(true);
    expect(isWellFormedAccountId('acct_short')).toBe(false);
    expect(isWellFormedAccountId(['acct_x'])).toBe(false);
  });
});
