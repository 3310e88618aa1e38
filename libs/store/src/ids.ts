import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 248 = 4 * 62: bytes at or above it are dropped so every character is equally likely (no modulo bias).
const REJECT_FROM = 256 - (256 % BASE62.length);

/** The live-key prefix of spec 2.1; key ids carry it too so a reader sees what kind of id it is. */
export const API_KEY_PREFIX = 'dg_live_';
export const API_KEY_RANDOM_LENGTH = 40;
export const KEY_ID_RANDOM_LENGTH = 8;
/** The connection prefix of spec 2.2. */
export const ACCOUNT_ID_PREFIX = 'acct_';
export const ACCOUNT_ID_RANDOM_LENGTH = 20;
export const CUSTOMER_ID_PREFIX = 'cus_';
export const CUSTOMER_ID_RANDOM_LENGTH = 16;

const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}}$`);
const KEY_ID_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_ID_RANDOM_LENGTH}}$`);
const ACCOUNT_ID_PATTERN = new RegExp(`^${ACCOUNT_ID_PREFIX}[0-9A-Za-z]{${ACCOUNT_ID_RANDOM_LENGTH}}$`);

/** `length` characters of [0-9A-Za-z] from the CSPRNG, by rejection sampling. */
export function randomBase62(length: number): string {
  if (!Number.isInteger(length) || length < 0) throw new RangeError('length must be a non-negative integer');
  let out = '';
  while (out.length < length) {
    // Ask for a little more than needed: about 3% of bytes are rejected.
    const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (const byte of bytes) {
      if (byte >= REJECT_FROM) continue;
      out += BASE62[byte % BASE62.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new API key secret (spec 2.1). It exists only in the response that shows it once. */
export function newApiKeySecret(): string {
  return API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
}

/**
 * The public short id of a key (GET /v1/me key_id). Independent random characters, never a slice of the
 * secret: key ids appear in logs and traces, and a slice would leak part of the secret.
 */
export function newKeyId(): string {
  return API_KEY_PREFIX + randomBase62(KEY_ID_RANDOM_LENGTH);
}

export function newAccountId(): string {
  return ACCOUNT_ID_PREFIX + randomBase62(ACCOUNT_ID_RANDOM_LENGTH);
}

export function newCustomerId(): string {
  return CUSTOMER_ID_PREFIX + randomBase62(CUSTOMER_ID_RANDOM_LENGTH);
}

/** Lowercase hex SHA-256 of the secret: the only form of a key that is stored or travels (spec 5.2). */
export function hashApiKey(secret: string): string {
  // The one-shot form: no Hash object per call, about 2.5x faster on the refusal path, where every request hashes.
  return hash('sha256', secret, 'hex');
}

/** True for the exact key format, so malformed values are rejected before any lookup. */
export function isWellFormedApiKey(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

export function isWellFormedKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID_PATTERN.test(value);
}

/** True for the exact account id format (X-Account-Id), so malformed values are rejected before any lookup. */
export function isWellFormedAccountId(value: unknown): value is string {
  return typeof value === 'string' && ACCOUNT_ID_PATTERN.test(value);
}
