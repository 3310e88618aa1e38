import type { EndpointSpec } from '@gateway/catalogue';
import type { QpsGuard } from '../../limits/qps-guard';
import { failure } from '../../proxy/proxy-failure';
import type { ConnectionCredentials, PreparedCall, ProviderAdapter } from '../provider-adapter';
import { appendParams, filterQuery } from '../query-filter';

/** reference/platforms.md: "Access token is incorrect or has been revoked." */
export const VIDEO_ADS_TOKEN_REVOKED = 40105;

export interface VideoAdsAdapterOptions {
  /** Platform origin, e.g. https://business-api.tiktok.com (no trailing slash). */
  baseUrl: string;
  appId: string;
  appSecret: string;
  guard: QpsGuard;
}

/**
 * video-ads (reference/platforms.md): the token goes in the `Access-Token` header (no "Bearer"); only the
 * endpoints that say needsAppCredentials also get the app's app_id and secret in the query.
 */
export class VideoAdsAdapter implements ProviderAdapter {
  readonly provider = 'video-ads' as const;
  readonly guard: QpsGuard;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly appId: string;
  // A private field, so util.inspect and JSON.stringify of the adapter never show the secret.
  readonly #appSecret: string;

  constructor(options: VideoAdsAdapterOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.appId = options.appId;
    this.guard = options.guard;
    this.#appSecret = options.appSecret;
  }

  prepare(endpoint: EndpointSpec, rawQuery: string, credentials: ConnectionCredentials): PreparedCall {
    const filtered = filterQuery(rawQuery);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const query = endpoint.needsAppCredentials
      ? appendParams(filtered.query, [
          ['app_id', this.appId],
          ['secret', this.#appSecret],
        ])
      : filtered.query;
    return {
      ok: true,
      request: {
        origin: this.origin,
        pathAndQuery: `${this.basePath}${endpoint.upstreamPath}${query === '' ? '' : `?${query}`}`,
        headers: {
          'access-token': credentials.access_token,
          // The body the caller gets must be the platform's own bytes, not a re-compressed copy.
          'accept-encoding': 'identity',
          accept: 'application/json',
        },
      },
    };
  }

  isRevokedToken(status: number, body: Buffer): boolean {
    // Platform errors come as HTTP 200 with a non-zero code (reference/platforms.md).
    if (status !== 200 || !body.includes(String(VIDEO_ADS_TOKEN_REVOKED))) return false;
    try {
      return (JSON.parse(body.toString('utf8')) as { code?: unknown }).code === VIDEO_ADS_TOKEN_REVOKED;
    } catch {
      return false;
    }
  }
}
