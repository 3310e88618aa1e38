import type { Request, Response } from 'express';

/**
 * Cookies of the sign-in and consent pages. With Secure (every non-local run) the `__Host-` prefix pins them to
 * this host and path `/`, so a sibling subdomain cannot plant a session or a CSRF token.
 */
export class CookieJar {
  readonly session: string;
  readonly csrf: string;

  constructor(readonly secure: boolean) {
    const prefix = secure ? '__Host-' : '';
    this.session = `${prefix}dg_oauth_session`;
    this.csrf = `${prefix}dg_oauth_csrf`;
  }

  read(req: Request, name: string): string | undefined {
    const header = req.headers.cookie;
    if (!header) return undefined;
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq !== -1 && part.slice(0, eq).trim() === name) {
        const value = part.slice(eq + 1).trim();
        return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
      }
    }
    return undefined;
  }

  /**
   * Lax for both: the first GET /authorize is a top-level navigation from the assistant's site and must see an
   * existing sign-in; cross-site POSTs never carry them. The forms are protected by the CSRF token on top.
   */
  set(res: Response, name: string, value: string, maxAgeMs?: number): void {
    const parts = [`${name}=${value}`, 'Path=/', 'SameSite=Lax', 'HttpOnly'];
    if (this.secure) parts.push('Secure');
    if (maxAgeMs !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`);
    res.append('Set-Cookie', parts.join('; '));
  }
}
