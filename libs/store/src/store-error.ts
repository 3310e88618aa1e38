/**
 * invalid_input: a caller passed something the store refuses (bad CIDR, unknown provider, foreign account id).
 * duplicate: a unique value is taken (customer email).
 * integrity: stored data contradicts itself (a key whose customer or plan is missing).
 * no_cipher: a credential operation on a store opened without a CredentialCipher.
 */
export type StoreErrorCode = 'invalid_input' | 'duplicate' | 'integrity' | 'no_cipher' | 'conflict';

/** Thrown by repositories. Messages name ids and fields, never secrets, tokens or key material. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/**
 * Repositories put caller values into query filters; a non-string (e.g. `{ $ne: null }` from a parsed
 * JSON body) would become a query operator. Every id that reaches a filter passes through here first.
 */
export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) {
    throw new StoreError('invalid_input', `${field} must be a non-empty string`);
  }
  return value;
}

export function requireStringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw new StoreError('invalid_input', `${field} must be an array of strings`);
  return value.map((item, i) => requireString(item, `${field}[${i}]`));
}
