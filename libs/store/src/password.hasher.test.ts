import { hashPassword, verifyPassword } from './password.hasher';

const FAST = { logN: 10, r: 8, p: 1 };

describe('password hasher', () => {
  it('verifies the right password and refuses a wrong one, with a fresh salt per hash', async () => {
    const hash = await hashPassword('correct horse battery', FAST);
    expect(hash).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(hash).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterx', hash)).toBe(false);
    expect(await hashPassword('correct horse battery', FAST)).not.toBe(hash);
  });

  it('refuses malformed stored hashes and absurd parameters', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$30$8$1$AAAA$AAAA')).toBe(false);
  });
});
