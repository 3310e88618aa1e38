import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43-128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** True when BASE64URL(SHA256(verifier)) equals the S256 challenge of the code (RFC 7636 section 4.6). */
export function verifiesS256(verifier: unknown, challenge: string): boolean {
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
