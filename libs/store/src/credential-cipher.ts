import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** AES-256-GCM output as stored on a connection. All byte fields are base64. */
export interface SealedCredentials {
  /** Id of the keyring key that sealed it; lets old ciphertexts open after the active key changes. */
  kid: string;
  iv: string;
  tag: string;
  data: string;
}

/** Raised for any keyring or decryption problem. Messages name key ids only, never key bytes or plaintext. */
export class CredentialCipherError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CredentialCipherError';
  }
}

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
// 96-bit IVs are the GCM default; a fresh random one per seal (docs/architecture.md, "Data": AES-256-GCM at rest).
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Seals platform credentials with a keyring. New ciphertexts use the active key; any key still in the
 * ring opens what it sealed, so rotation is: add the new key, make it active, reseal, then drop the old
 * one. The AAD binds a ciphertext to its connection (the account id), so it cannot be moved to another.
 */
export class CredentialCipher {
  // A private field and KeyObjects: neither util.inspect nor JSON.stringify shows key bytes.
  readonly #ring: ReadonlyMap<string, KeyObject>;

  private constructor(
    ring: ReadonlyMap<string, KeyObject>,
    readonly activeKeyId: string,
  ) {
    this.#ring = ring;
  }

  /** Builds a cipher from raw 32-byte keys by id. */
  static fromKeys(keys: Iterable<readonly [string, Uint8Array]>, activeKeyId: string): CredentialCipher {
    const ring = new Map<string, KeyObject>();
    let index = 0;
    for (const [kid, bytes] of keys) {
      index += 1;
      if (!KID_PATTERN.test(kid)) throw new CredentialCipherError(`keyring entry ${index} has an invalid key id`);
      if (bytes.length !== KEY_BYTES) {
        throw new CredentialCipherError(`keyring key "${kid}" must be ${KEY_BYTES} bytes`);
      }
      if (ring.has(kid)) throw new CredentialCipherError(`keyring key "${kid}" appears twice`);
      ring.set(kid, createSecretKey(Buffer.from(bytes)));
    }
    if (ring.size === 0) throw new CredentialCipherError('the keyring is empty');
    if (!ring.has(activeKeyId))
      throw new CredentialCipherError(`the active key "${activeKeyId}" is not in the keyring`);
    return new CredentialCipher(ring, activeKeyId);
  }

  /** Parses `"<kid>:<base64 of 32 bytes>,<kid2>:..."` (an environment value). */
  static fromEnv(value: string, activeKeyId: string): CredentialCipher {
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry, i) => {
        const colon = entry.indexOf(':');
        const kid = colon === -1 ? '' : entry.slice(0, colon).trim();
        const encoded = colon === -1 ? '' : entry.slice(colon + 1).trim();
        if (!KID_PATTERN.test(kid) || !BASE64_PATTERN.test(encoded)) {
          throw new CredentialCipherError(`keyring entry ${i + 1} is not "<kid>:<base64 of ${KEY_BYTES} bytes>"`);
        }
        return [kid, Buffer.from(encoded, 'base64')] as const;
      });
    return CredentialCipher.fromKeys(entries, activeKeyId);
  }

  /** A fresh random key in keyring syntax, for setup scripts and tests. */
  static generateKeyringEntry(kid: string): string {
    if (!KID_PATTERN.test(kid)) throw new CredentialCipherError('invalid key id');
    return `${kid}:${randomBytes(KEY_BYTES).toString('base64')}`;
  }

  get keyIds(): string[] {
    return [...this.#ring.keys()];
  }

  seal(plaintext: object, aad: string): SealedCredentials {
    requireAad(aad);
    const key = this.#ring.get(this.activeKeyId)!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = Buffer.concat([cipher.update(JSON.stringify(plaintext), 'utf8'), cipher.final()]);
    return {
      kid: this.activeKeyId,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  /** The parsed plaintext; callers validate its shape. Fails on a wrong AAD, a tampered field or an unknown kid. */
  open(sealed: SealedCredentials, aad: string): unknown {
    requireAad(aad);
    const key = typeof sealed?.kid === 'string' ? this.#ring.get(sealed.kid) : undefined;
    if (key === undefined) {
      throw new CredentialCipherError(`credentials were sealed with a key that is not in the keyring`);
    }
    const iv = decodeField(sealed.iv, IV_BYTES);
    const tag = decodeField(sealed.tag, TAG_BYTES);
    const data = typeof sealed.data === 'string' && BASE64_PATTERN.test(sealed.data) ? sealed.data : null;
    if (iv === null || tag === null || data === null) {
      throw new CredentialCipherError('sealed credentials are malformed');
    }
    let text: string;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // No cause: OpenSSL errors say nothing useful and we keep every byte out of the message.
      throw new CredentialCipherError(
        `credentials failed authentication with key "${sealed.kid}" (tampered, or sealed for another connection)`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new CredentialCipherError('decrypted credentials are not JSON');
    }
  }

  /** True when the ciphertext was sealed with a key other than the active one. */
  needsReseal(sealed: SealedCredentials): boolean {
    return sealed.kid !== this.activeKeyId;
  }

  /** Re-encrypts under the active key (key rotation); returns the input unchanged when it already is. */
  reseal(sealed: SealedCredentials, aad: string): SealedCredentials {
    if (!this.needsReseal(sealed)) return sealed;
    return this.seal(this.open(sealed, aad) as object, aad);
  }
}

function requireAad(aad: string): void {
  if (typeof aad !== 'string' || aad.length === 0) {
    throw new CredentialCipherError('an AAD (the connection account id) is required');
  }
}

function decodeField(value: unknown, bytes: number): Buffer | null {
  if (typeof value !== 'string' || !BASE64_PATTERN.test(value)) return null;
  const buffer = Buffer.from(value, 'base64');
  return buffer.length === bytes ? buffer : null;
}
