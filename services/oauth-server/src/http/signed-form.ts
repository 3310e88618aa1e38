import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signs the validated authorization request that the sign-in and consent forms carry (HMAC-SHA256, with an
 * expiry), so a POST cannot alter the client, redirect URI, PKCE challenge, state or resource that GET
 * /authorize checked, and nothing needs to be stored between the pages. The first key signs; every key verifies,
 * so keys rotate without breaking forms in flight.
 */
export class FormSigner {
  private readonly keys: Buffer[];

  constructor(
    keys: readonly string[],
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = (keys.length > 0 ? keys : [randomBytes(32).toString('base64url')]).map((key) => Buffer.from(key));
  }

  sign(payload: object): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: this.now() + this.ttlMs })).toString('base64url');
    return `${body}.${this.mac(this.keys[0]!, body)}`;
  }

  /** The payload when the signature is good and it has not expired; null otherwise. */
  verify(token: unknown): Record<string, unknown> | null {
    if (typeof token !== 'string' || token.length > 8192) return null;
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return null;
    const given = Buffer.from(mac, 'base64url');
    const good = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, body), 'base64url');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!good) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
      return typeof payload.exp === 'number' && payload.exp > this.now() ? payload : null;
    } catch {
      return null;
    }
  }

  private mac(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}
