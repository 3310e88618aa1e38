import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import type { RequestHandler } from 'express';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Host names (URL form: IPv6 in brackets) accepted when ALLOWED_HOSTS is not set. */
export function defaultAllowedHosts(publicUrl: string, listenHost: string): string[] {
  const publicHost = new URL(publicUrl).hostname;
  const listen = new URL(`http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}`).hostname;
  const loopback = LOOPBACK_HOSTS.includes(publicHost) || LOOPBACK_HOSTS.includes(listen);
  return [...new Set([publicHost, ...(loopback ? LOOPBACK_HOSTS : [])])];
}

export interface RebindingGuard {
  /** The SDK's Host validation (port-agnostic). */
  host: RequestHandler;
  /** Origin validation, for the MCP endpoint. */
  origin: RequestHandler;
}

/**
 * DNS-rebinding protection (MCP transports, security warning): the Host header must name an allowed host, and an
 * Origin header, when a browser sends one, must be an allowed origin: one of `allowedOrigins`, or when none are
 * configured any origin on an allowed host. Refusals are 403 with a JSON-RPC error body, like the SDK's.
 */
export function dnsRebindingGuard(allowedHosts: readonly string[], allowedOrigins: readonly string[]): RebindingGuard {
  const origins = new Set(allowedOrigins.map((origin) => origin.replace(/\/+$/, '').toLowerCase()));
  const originAllowed = (origin: string): boolean => {
    if (origins.size > 0) return origins.has(origin.toLowerCase());
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && allowedHosts.includes(url.hostname);
    } catch {
      return false; // "null" (sandboxed frames, file://) and anything unparsable
    }
  };
  const origin: RequestHandler = (req, res, next) => {
    const value = req.headers.origin;
    if (value === undefined || originAllowed(value)) {
      next();
      return;
    }
    res.status(403).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Origin' }, id: null });
  };
  return { host: hostHeaderValidation([...allowedHosts]), origin };
}
