import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { cookieNames, readCookie, setCookie, type CookieSettings } from '../http/cookies';
import { PortalError } from '../http/portal-problem';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF token of this browser (double-submit cookie), made when it has none. */
export function issueCsrfToken(req: Request, res: Response, settings: CookieSettings): string {
  const name = cookieNames(settings).csrf;
  const existing = readCookie(req, name);
  if (existing !== undefined && existing.length === 43) return existing;
  const token = randomBytes(32).toString('base64url');
  // Readable by the page's script (it copies it into the header); Strict so it never rides a cross-site request.
  setCookie(res, settings, name, token, { httpOnly: false, sameSite: 'Strict' });
  return token;
}

/**
 * Every state change needs both: an Origin (when the browser sends one) equal to the portal's, and the
 * X-CSRF-Token header equal to the CSRF cookie. Another site can neither read the cookie nor set the header
 * without a CORS preflight, which the portal never grants; with Secure the `__Host-` cookie cannot be planted
 * by a sibling subdomain.
 */
export function csrfGuard(settings: CookieSettings, publicOrigin: () => string) {
  const name = cookieNames(settings).csrf;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== publicOrigin()) {
      next(new PortalError('csrf_failed', 'the request comes from another origin'));
      return;
    }
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      next(new PortalError('csrf_failed', 'the request comes from another site'));
      return;
    }
    const cookie = readCookie(req, name);
    const header = req.headers[CSRF_HEADER];
    if (cookie === undefined || typeof header !== 'string' || !sameToken(cookie, header)) {
      next(new PortalError('csrf_failed', 'send the CSRF token of GET /api/csrf as X-CSRF-Token'));
      return;
    }
    next();
  };
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
