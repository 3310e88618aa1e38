import type { Request, Response } from 'express';

export interface CookieSettings {
  /** False only for local http runs (NODE_ENV test or development without https). */
  secure: boolean;
}

/**
 * Cookie names. With Secure the `__Host-` prefix pins them to this host and path `/`, so a sibling subdomain
 * cannot plant a session or a CSRF token (the weak spot of double-submit cookies).
 */
export function cookieNames(settings: CookieSettings): { session: string; csrf: string } {
  const prefix = settings.secure ? '__Host-' : '';
  return { session: `${prefix}dg_session`, csrf: `${prefix}dg_csrf` };
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function setCookie(
  res: Response,
  settings: CookieSettings,
  name: string,
  value: string,
  options: { httpOnly: boolean; maxAgeMs?: number; sameSite: 'Lax' | 'Strict' },
): void {
  const parts = [`${name}=${value}`, 'Path=/', `SameSite=${options.sameSite}`];
  if (options.httpOnly) parts.push('HttpOnly');
  if (settings.secure) parts.push('Secure');
  if (options.maxAgeMs !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeMs / 1000))}`);
  res.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(res: Response, settings: CookieSettings, name: string, httpOnly: boolean): void {
  setCookie(res, settings, name, '', { httpOnly, maxAgeMs: 0, sameSite: 'Lax' });
}
