import { ownedParamsOf, providerSpec, upstreamPathOf } from '@gateway/catalogue';
import { videoShopSign } from '@gateway/platform-grants';
import type { QpsGuard } from '../../limits/qps-guard';
import { failure } from '../../proxy/proxy-failure';
import { envelopeCode } from '../envelope-code';
import type {
  ConnectionCredentials,
  PlatformCall,
  PreparedCall,
  ProviderAdapter,
  RenewOutcome,
  TokenLifecycle,
} from '../provider-adapter';
import { filterQuery } from '../query-filter';
import { decodedPairs } from './video-shop.signature';

const TOKEN_ERRORS: ReadonlySet<number | string> = new Set(providerSpec('video-shop')!.envelope.tokenErrorCodes);
/** Paths of the seller, not of one shop: the platform refuses a shop_cipher there. */
const SELLER_SCOPED = /^\/(authorization|seller)\//;
/** The platform's "too many requests" and "internal error": a refresh refused for these may be retried. */
const TRANSIENT_CODES: ReadonlySet<number> = new Set([36009002, 36009003]);

export interface VideoShopAdapterOptions {
  /** API base, e.g. https://open-api.tiktokglobalshop.com (the sandbox's /video-shop locally). */
  apiBaseUrl: string;
  /** Auth base for token refresh, e.g. https://auth.tiktok-shops.com. */
  authBaseUrl: string;
  appKey: string;
  appSecret: string;
  guard: QpsGuard;
  /** Tokens are refreshed when they have less than this left. */
  renewAheadMs: number;
  /** Unix milliseconds; signatures carry the current second. Injectable for tests. */
  now?: () => number;
  fetch?: typeof fetch;
}

interface TokenEnvelope {
  code?: unknown;
  message?: unknown;
  data?: {
    access_token?: unknown;
    access_token_expire_in?: unknown;
    refresh_token?: unknown;
    refresh_token_expire_in?: unknown;
  } | null;
}

/**
 * video-shop (Shop Partner API): app_key, timestamp, the shop's cipher where the platform wants it, the access
 * token in `x-tts-access-token`, and an HMAC-SHA256 signature over exactly the query and body bytes sent.
 * Access tokens expire (about a week); the refresh token rotates on every refresh.
 */
export class VideoShopAdapter implements ProviderAdapter {
  readonly provider = 'video-shop' as const;
  readonly guard: QpsGuard;
  readonly responseHeaders: readonly string[] = ['x-tt-logid'];
  readonly tokens: TokenLifecycle;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly authBase: string;
  private readonly appKey: string;
  private readonly owned = ownedParamsOf('video-shop');
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  readonly #appSecret: string;

  constructor(options: VideoShopAdapterOptions) {
    const url = new URL(options.apiBaseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.authBase = options.authBaseUrl.replace(/\/+$/, '');
    this.appKey = options.appKey;
    this.guard = options.guard;
    this.tokens = { kind: 'refreshable', renewAheadMs: options.renewAheadMs };
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.#appSecret = options.appSecret;
  }

  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall {
    const filtered = filterQuery(call.query, this.owned);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const platformPath = upstreamPathOf(call.endpoint, call.path);
    const added: Array<[string, string]> = [
      ['app_key', this.appKey],
      ['timestamp', String(Math.floor(this.now() / 1000))],
    ];
    if (!SELLER_SCOPED.test(platformPath)) {
      const cipher = credentials.attributes?.['shop_cipher'];
      if (cipher === undefined) {
        return { ok: false, failure: failure('connection_unavailable', 'the connection has no shop cipher') };
      }
      added.push(['shop_cipher', cipher]);
    }
    const signed = [...decodedPairs(filtered.query), ...added];
    const sign = videoShopSign(this.#appSecret, platformPath, signed, call.body);
    const extra = [...added, ['sign', sign] as const]
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    const query = filtered.query === '' ? extra : `${filtered.query}&${extra}`;
    const headers: Record<string, string> = {
      'x-tts-access-token': credentials.access_token,
      'content-type': 'application/json',
      'accept-encoding': 'identity',
      accept: 'application/json',
    };
    return {
      ok: true,
      request: {
        method: call.method,
        origin: this.origin,
        pathAndQuery: `${this.basePath}${platformPath}?${query}`,
        headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
      },
    };
  }

  isTokenError(status: number, body: Buffer): boolean {
    // 36009004 also answers a misplaced shop_cipher, with 400: only a 401 is about the token.
    if (status !== 401) return false;
    const code = envelopeCode(body, 'code');
    return code !== undefined && TOKEN_ERRORS.has(code);
  }

  /**
   * Refresh tokens rotate: once the platform has the request, the old one is dead. The answer is awaited and read
   * to its end with no timeout of ours (fetch's own, 300 s without a head or body bytes, bounds a silent platform).
   */
  async renew(credentials: ConnectionCredentials): Promise<RenewOutcome> {
    if (credentials.refresh_token === undefined) {
      return { ok: false, reason: 'refused', detail: 'the connection has no refresh token' };
    }
    const url = new URL(`${this.authBase}/api/v2/token/refresh`);
    url.searchParams.set('app_key', this.appKey);
    url.searchParams.set('app_secret', this.#appSecret);
    url.searchParams.set('refresh_token', credentials.refresh_token);
    url.searchParams.set('grant_type', 'refresh_token');
    let status: number;
    let envelope: TokenEnvelope;
    try {
      const response = await this.fetch(url, {
        headers: { accept: 'application/json' },
      });
      status = response.status;
      envelope = (await response.json()) as TokenEnvelope;
    } catch {
      return { ok: false, reason: 'unavailable', detail: 'the platform token endpoint could not be reached' };
    }
    const data = envelope.data;
    if (
      envelope.code === 0 &&
      data &&
      typeof data.access_token === 'string' &&
      typeof data.refresh_token === 'string'
    ) {
      return {
        ok: true,
        credentials: {
          ...credentials,
          access_token: data.access_token,
          refresh_token: data.refresh_token,
          ...instant('access_token_expires_at', data.access_token_expire_in),
          ...instant('refresh_token_expires_at', data.refresh_token_expire_in),
        },
      };
    }
    const code = typeof envelope.code === 'number' ? envelope.code : undefined;
    if (status >= 500 || code === undefined || TRANSIENT_CODES.has(code)) {
      return { ok: false, reason: 'unavailable', detail: `the platform token endpoint answered HTTP ${status}` };
    }
    return { ok: false, reason: 'refused', detail: `the platform refused the refresh (code ${code})` };
  }
}

/** The platform gives absolute unix seconds; we store ISO instants. */
function instant(field: 'access_token_expires_at' | 'refresh_token_expires_at', seconds: unknown) {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
    ? { [field]: new Date(seconds * 1000).toISOString() }
    : {};
}
