import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { CredentialCipher, CredentialCipherError, type SealedCredentials } from './credential-cipher';

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const TOKENS = { access_token: 'at-secret-value', refresh_token: 'rt-secret-value', scope: 'read' };

function flipFirstByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  return bytes.toString('base64');
}

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('credential cipher', () => {
  const cipher = CredentialCipher.fromEnv(`k1:${KEY_A}`, 'k1');

  it('round-trips credentials bound to their account id', () => {
    const sealed = cipher.seal(TOKENS, 'acct_1');
    expect(sealed.kid).toBe('k1');
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    expect(JSON.stringify(sealed)).not.toContain('secret-value');
    expect(cipher.open(sealed, 'acct_1')).toEqual(TOKENS);
  });

  it('uses a fresh IV for every seal', () => {
    const a = cipher.seal(TOKENS, 'acct_1');
    const b = cipher.seal(TOKENS, 'acct_1');
    expect(a.iv).not.toBe(b.iv);
    expect(a.data).not.toBe(b.data);
  });

  it.each(['data', 'tag', 'iv'] as const)('detects a tampered %s', (field) => {
    const sealed = cipher.seal(TOKENS, 'acct_1');
    const tampered: SealedCredentials = { ...sealed, [field]: flipFirstByte(sealed[field]) };
    expect(() => cipher.open(tampered, 'acct_1')).toThrow(CredentialCipherError);
  });

  it('refuses a ciphertext moved to another connection (wrong AAD)', () => {
    const sealed = cipher.seal(TOKENS, 'acct_1');
    expect(() => cipher.open(sealed, 'acct_2')).toThrow(CredentialCipherError);
  });

  it('requires an AAD', () => {
    expect(() => cipher.seal(TOKENS, '')).toThrow(CredentialCipherError);
  });

  it('opens old ciphertexts after rotation while the retired key is in the ring, and reseals them', () => {
    const before = cipher.seal(TOKENS, 'acct_1');
    const rotated = CredentialCipher.fromEnv(`k1:${KEY_A}, k2:${KEY_B}`, 'k2');
    expect(rotated.keyIds).toEqual(['k1', 'k2']);
    expect(rotated.open(before, 'acct_1')).toEqual(TOKENS);
    expect(rotated.needsReseal(before)).toBe(true);

    const after = rotated.reseal(before, 'acct_1');
    expect(after.kid).toBe('k2');
    expect(rotated.needsReseal(after)).toBe(false);
    expect(rotated.reseal(after, 'acct_1')).toBe(after);

    const onlyNew = CredentialCipher.fromEnv(`k2:${KEY_B}`, 'k2');
    expect(onlyNew.open(after, 'acct_1')).toEqual(TOKENS);
    expect(() => onlyNew.open(before, 'acct_1')).toThrow(/not in the keyring/);
  });

  it('rejects malformed keyrings without echoing key material', () => {
    const shortKey = randomBytes(16).toString('base64');
    const cases: Array<[string, string]> = [
      [`k1:${shortKey}`, 'k1'],
      [`${KEY_A}`, 'k1'],
      [`k1:${KEY_A}`, 'k9'],
      [`k1:${KEY_A},k1:${KEY_B}`, 'k1'],
      [`k1:not base64!`, 'k1'],
      ['', 'k1'],
    ];
    for (const [value, active] of cases) {
      const error = errorOf(() => CredentialCipher.fromEnv(value, active));
      expect(error).toBeInstanceOf(CredentialCipherError);
      for (const key of [KEY_A, KEY_B, shortKey]) expect(error.message).not.toContain(key);
    }
  });

  it('keeps key bytes and plaintext out of errors and inspection', () => {
    const sealed = cipher.seal(TOKENS, 'acct_1');
    const error = errorOf(() => cipher.open(sealed, 'acct_2'));
    const rendered = `${error.message} ${inspect(error)} ${String(error.cause ?? '')}`;
    expect(rendered).not.toContain('secret-value');
    expect(rendered).not.toContain(KEY_A);
    expect(inspect(cipher, { depth: 10, showHidden: true })).not.toContain(KEY_A);
    expect(JSON.stringify(cipher)).not.toContain(KEY_A);
  });

  it('generates keyring entries it can load', () => {
    const entry = CredentialCipher.generateKeyringEntry('2025-01');
    const generated = CredentialCipher.fromEnv(entry, '2025-01');
    expect(generated.open(generated.seal(TOKENS, 'acct_1'), 'acct_1')).toEqual(TOKENS);
  });
});
