import { requestIdOf, sendProblem } from '@gateway/errors';
import type { Logger } from '@gateway/telemetry';
import type { RequestHandler } from 'express';

/** The two discovery documents oauth-server serves (RFC 8414, and the same document at the OpenID location). */
export const AUTHORIZATION_SERVER_METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

/**
 * Where an issuer publishes its metadata: the well-known path inserted between the origin and the issuer's path
 * (RFC 8414 section 3.1; the same for the OpenID document, as oauth-server serves both at the root).
 */
export function authorizationServerMetadataUrl(issuer: string, wellKnownPath: string): string {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${wellKnownPath}${path}`;
}

export interface MetadataSourceOptions {
  /** The issuer: the fetched document must name exactly it (RFC 8414 section 3.3). */
  issuer: string;
  /** Where to fetch it: the issuer's metadata URL, or the authorization server inside the cluster. */
  url: string;
  /** How long a fetched document is served before it is fetched again. */
  ttlMs: number;
  /** How long a fetch may take. */
  timeoutMs: number;
  fetchFn?: typeof fetch;
  now?: () => number;
}

/** One of the authorization server's metadata documents, fetched on demand and kept for a short while. */
export class CachedMetadata {
  private cached?: { document: Record<string, unknown>; until: number };
  private inFlight?: Promise<Record<string, unknown>>;

  constructor(private readonly options: MetadataSourceOptions) {}

  get url(): string {
    return this.options.url;
  }

  async get(): Promise<Record<string, unknown>> {
    const now = (this.options.now ?? Date.now)();
    if (this.cached && this.cached.until > now) return this.cached.document;
    // Concurrent requests share one fetch.
    this.inFlight ??= this.fetchDocument().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchDocument(): Promise<Record<string, unknown>> {
    const fetchFn = this.options.fetchFn ?? fetch;
    const response = await fetchFn(this.options.url, {
      headers: { Accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const document = (await response.json()) as unknown;
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      throw new Error('not a JSON object');
    }
    const issuer = (document as Record<string, unknown>).issuer;
    if (issuer !== this.options.issuer) {
      throw new Error(`issuer ${JSON.stringify(issuer)} is not ${JSON.stringify(this.options.issuer)}`);
    }
    this.cached = {
      document: document as Record<string, unknown>,
      until: (this.options.now ?? Date.now)() + this.options.ttlMs,
    };
    return document as Record<string, unknown>;
  }
}

/**
 * GET of the authorization server's metadata at the MCP origin, for clients that look for it there rather than at
 * the issuer the protected-resource metadata names (MCP authorization, 2025-03-26 discovery). The answer is the
 * authorization server's own document, byte for byte in content (its `issuer` stays the authorization server's);
 * when it cannot be fetched, 502 problem+json. Public and CORS-open like the protected-resource metadata.
 */
export function authorizationServerMetadataHandler(
  source: CachedMetadata,
  ttlMs: number,
  logger: Logger,
): RequestHandler {
  return (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
      res.status(204).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD, OPTIONS');
      res.status(405).json({ error: 'method_not_allowed' });
      return;
    }
    source.get().then(
      (document) => {
        res.setHeader('Cache-Control', `public, max-age=${Math.floor(ttlMs / 1000)}`);
        res.json(document);
      },
      (error: unknown) => {
        logger.warn(
          { url: source.url, err: error instanceof Error ? error.message : String(error) },
          'authorization server metadata could not be fetched',
        );
        sendProblem(res, 'platform_unreachable', requestIdOf(req.headers['x-request-id']), {
          detail: 'The OAuth authorization server metadata could not be fetched; retry shortly.',
          headers: { 'Access-Control-Allow-Origin': '*' },
        });
      },
    );
  };
}
