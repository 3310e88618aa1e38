import { ownedParamsOf, providerSpec, upstreamPathOf } from '@gateway/catalogue';
import type { QpsGuard } from '../../limits/qps-guard';
import { failure } from '../../proxy/proxy-failure';
import type {
  ConnectionCredentials,
  PlatformCall,
  PreparedCall,
  ProviderAdapter,
  TokenLifecycle,
} from '../provider-adapter';
import { appendParams, filterQuery } from '../query-filter';
import { envelopeCode } from '../envelope-code';

/** The only path where the platform wants the app's app_id and secret in the query (docs/providers.md). */
const APP_CREDENTIAL_PATHS: ReadonlySet<string> = new Set(['/v1.3/oauth2/advertiser/get/']);
const TOKEN_ERRORS: ReadonlySet<number | string> = new Set(providerSpec('video-ads')!.envelope.tokenErrorCodes);

export interface VideoAdsAdapterOptions {
  /** Platform origin, e.g. https://business-api.tiktok.com (no trailing slash). */
  baseUrl: string;
  appId: string;
  appSecret: string;
  guard: QpsGuard;
}

/**
 * video-ads: the token goes in the `Access-Token` header (no "Bearer"); the advertiser listing also gets the
 * app's app_id and secret in the query. Tokens never expire: they die when the advertiser cancels the grant.
 */
export class VideoAdsAdapter implements ProviderAdapter {
  readonly provider = 'video-ads' as const;
  readonly guard: QpsGuard;
  readonly responseHeaders: readonly string[] = ['x-tt-logid'];
  readonly tokens: TokenLifecycle = { kind: 'long-lived' };
  private readonly origin: string;
  private readonly basePath: string;
  private readonly appId: string;
  private readonly owned = ownedParamsOf('video-ads');
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

  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall {
    const filtered = filterQuery(call.query, this.owned);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const query = APP_CREDENTIAL_PATHS.has(call.endpoint.path)
      ? appendParams(filtered.query, [
          ['app_id', this.appId],
          ['secret', this.#appSecret],
        ])
      : filtered.query;
    const headers: Record<string, string> = {
      'access-token': credentials.access_token,
      // The body the caller gets must be the platform's own bytes, not a re-compressed copy.
      'accept-encoding': 'identity',
      accept: 'application/json',
    };
    // The platform reads a JSON body on GET as well (the same parameters as JSON values).
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    return {
      ok: true,
      request: {
        method: call.method,
        origin: this.origin,
        pathAndQuery: `${this.basePath}${upstreamPathOf(call.endpoint, call.path)}${query === '' ? '' : `?${query}`}`,
        headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
      },
    };
  }

  isTokenError(status: number, body: Buffer): boolean {
    // Platform errors come as HTTP 200 with a non-zero code.
    if (status !== 200) return false;
    const code = envelopeCode(body, 'code');
    return code !== undefined && TOKEN_ERRORS.has(code);
  }
}
