import { ownedParamsOf, providerSpec, upstreamPathOf } from '@gateway/catalogue';
import { marketplaceSign } from '@gateway/platform-grants';
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

export type MarketplaceProvider = 'marketplace' | 'marketplace-ads' | 'marketplace-affiliate';

/** Refresh tokens live 30 days from issue; the platform's answer does not say so. */
export const MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 3_600_000;
const RENEW_PATH = '/api/v2/auth/access_token/get';
/** Errors after which a refresh may be tried again; any other error means the refresh token is dead. */
const TRANSIENT_ERRORS: ReadonlySet<string> = new Set([
  'error_server',
  'error_rate_limit',
  'error_limit',
  'error_busy',
]);

export interface MarketplaceAdapterOptions {
  provider: MarketplaceProvider;
  /** Platform host, e.g. https://partner.shopeemobile.com (the sandbox's /marketplace locally). */
  baseUrl: string;
  partnerId: string;
  partnerKey: string;
  guard: QpsGuard;
  renewAheadMs: number;
  /** How long a refresh token lives from its issue (MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS). */
  refreshTokenLifetimeMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
}

interface TokenAnswer {
  error?: unknown;
  message?: unknown;
  access_token?: unknown;
  refresh_token?: unknown;
  expire_in?: unknown;
}

/**
 * marketplace, marketplace-ads and marketplace-affiliate: three partner apps of one platform, one adapter each.
 * Every call carries partner_id, timestamp, the connection's access_token and shop_id, and the HMAC-SHA256
 * signature over partner_id + path + timestamp + access_token + shop_id. Access tokens live 4 hours; each
 * refresh returns a new pair and kills the refresh token it used.
 */
export class MarketplaceAdapter implements ProviderAdapter {
  readonly provider: MarketplaceProvider;
  readonly guard: QpsGuard;
  readonly responseHeaders: readonly string[] = [];
  readonly tokens: TokenLifecycle;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly partnerId: string;
  private readonly owned: ReadonlySet<string>;
  private readonly tokenErrors: ReadonlySet<number | string>;
  private readonly refreshTokenLifetimeMs: number;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  readonly #partnerKey: string;

  constructor(options: MarketplaceAdapterOptions) {
    const url = new URL(options.baseUrl);
    this.provider = options.provider;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.partnerId = options.partnerId;
    this.guard = options.guard;
    this.tokens = { kind: 'refreshable', renewAheadMs: options.renewAheadMs };
    this.owned = ownedParamsOf(options.provider);
    this.tokenErrors = new Set(providerSpec(options.provider)!.envelope.tokenErrorCodes);
    this.refreshTokenLifetimeMs = options.refreshTokenLifetimeMs ?? MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS;
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.#partnerKey = options.partnerKey;
  }

  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall {
    const filtered = filterQuery(call.query, this.owned);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const shopId = credentials.attributes?.['shop_id'];
    if (shopId === undefined) {
      return { ok: false, failure: failure('connection_unavailable', 'the connection has no shop id') };
    }
    const path = upstreamPathOf(call.endpoint, call.path);
    const timestamp = Math.floor(this.now() / 1000);
    const sign = marketplaceSign(this.#partnerKey, this.partnerId, path, timestamp, {
      accessToken: credentials.access_token,
      shopId,
    });
    const added = [
      ['partner_id', this.partnerId],
      ['timestamp', String(timestamp)],
      ['access_token', credentials.access_token],
      ['shop_id', shopId],
      ['sign', sign],
    ]
      .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
      .join('&');
    const query = filtered.query === '' ? added : `${filtered.query}&${added}`;
    const headers: Record<string, string> = { 'accept-encoding': 'identity', accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    return {
      ok: true,
      request: {
        method: call.method,
        origin: this.origin,
        pathAndQuery: `${this.basePath}${path}?${query}`,
        headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
      },
    };
  }

  isTokenError(status: number, body: Buffer): boolean {
    if (status !== 200 && status !== 401 && status !== 403) return false;
    const error = envelopeCode(body, 'error');
    return error !== undefined && this.tokenErrors.has(error);
  }

  /**
   * The refresh token is single use: once the platform has the request, the old one is dead. So the answer is
   * awaited and read to its end with no timeout of ours (fetch's own, 300 s without a head or body bytes, bounds
   * a platform that never answers), and the caller (TokenRenewer) stores the new pair before anything else.
   */
  async renew(credentials: ConnectionCredentials): Promise<RenewOutcome> {
    const shopId = credentials.attributes?.['shop_id'];
    if (credentials.refresh_token === undefined || shopId === undefined) {
      return { ok: false, reason: 'refused', detail: 'the connection has no refresh token or shop id' };
    }
    const timestamp = Math.floor(this.now() / 1000);
    const sign = marketplaceSign(this.#partnerKey, this.partnerId, RENEW_PATH, timestamp);
    const url = `${this.origin}${this.basePath}${RENEW_PATH}?partner_id=${encodeURIComponent(this.partnerId)}&timestamp=${timestamp}&sign=${sign}`;
    let status: number;
    let answer: TokenAnswer;
    try {
      const response = await this.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          refresh_token: credentials.refresh_token,
          partner_id: Number(this.partnerId),
          shop_id: Number(shopId),
        }),
      });
      status = response.status;
      answer = (await response.json()) as TokenAnswer;
    } catch {
      return { ok: false, reason: 'unavailable', detail: 'the platform token endpoint could not be reached' };
    }
    const error = typeof answer.error === 'string' ? answer.error : '';
    if (error === '' && typeof answer.access_token === 'string' && typeof answer.refresh_token === 'string') {
      const expiresIn = typeof answer.expire_in === 'number' ? answer.expire_in : 14_400;
      return {
        ok: true,
        credentials: {
          ...credentials,
          access_token: answer.access_token,
          refresh_token: answer.refresh_token,
          access_token_expires_at: new Date(this.now() + expiresIn * 1000).toISOString(),
          refresh_token_expires_at: new Date(this.now() + this.refreshTokenLifetimeMs).toISOString(),
        },
      };
    }
    if (status >= 500 || error === '' || TRANSIENT_ERRORS.has(error)) {
      return { ok: false, reason: 'unavailable', detail: `the platform token endpoint answered HTTP ${status}` };
    }
    return { ok: false, reason: 'refused', detail: `the platform refused the refresh (${error})` };
  }
}
