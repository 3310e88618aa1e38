import type { EndpointSpec, ProviderId } from '@gateway/catalogue';
import type { PlatformCredentials } from '@gateway/store';
import type { QpsGuard } from '../limits/qps-guard';
import type { ProxyFailure } from '../proxy/proxy-failure';
import type { UpstreamRequest } from '../upstream/upstream.client';

/** The decrypted plaintext of a connection's credentials: tokens, their expiry, provider attributes. */
export type ConnectionCredentials = PlatformCredentials;

/** One allowed caller request, as the adapter turns it into a platform request. */
export interface PlatformCall {
  endpoint: EndpointSpec;
  method: 'GET' | 'POST';
  /** The raw path after /v1/<provider>, byte-exact (allowlisted). */
  path: string;
  /** The raw query string; the adapter drops the parameters its provider owns. */
  query: string;
  /** The caller's JSON body bytes, already checked against the endpoint; forwarded byte for byte. */
  body: Buffer | undefined;
}

export type PreparedCall = { ok: true; request: UpstreamRequest } | { ok: false; failure: ProxyFailure };

/**
 * How a provider's connection tokens live:
 * - long-lived: valid until the customer cancels the grant (video-ads);
 * - refreshable: expire, and a refresh token (rotating, single use) gets a new pair (video-shop, marketplace);
 * - minted: the service mints a short-lived token from credentials it holds (client assertion, search-ads).
 */
export type TokenLifecycle =
  | { kind: 'long-lived' }
  | {
      kind: 'refreshable' | 'minted';
      /** Tokens are renewed when they have less than this left. */
      renewAheadMs: number;
    };

export type RenewOutcome =
  | { ok: true; credentials: ConnectionCredentials }
  /** refused: the platform says the grant is dead (re-grant needed); unavailable: try again later. */
  | { ok: false; reason: 'refused' | 'unavailable'; detail: string };

/**
 * Everything platform-specific about calling one provider: how credentials are injected and requests signed,
 * how the app is rate-guarded, how the platform says a token is dead, and how tokens are renewed. The proxy
 * core does the rest (allowlist, connection, deadline, renewal single-flight, retries, streaming) the same
 * way for every provider.
 */
export interface ProviderAdapter {
  readonly provider: ProviderId;
  /** Every call of this provider's app passes this guard. */
  readonly guard: QpsGuard;
  readonly tokens: TokenLifecycle;
  /** The platform's answer headers worth passing on (lower-case; e.g. its log id), never cookies. */
  readonly responseHeaders: readonly string[];
  /** The answer headers of one endpoint, when they differ by API version; absent: responseHeaders. */
  responseHeadersOf?(endpoint: EndpointSpec): readonly string[];
  /**
   * The platform request for an allowed call: the caller's query with the provider's owned parameters dropped,
   * and the connection's and the app's credentials (and signature) added. No caller header is forwarded.
   */
  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall;
  /** True when a complete (small) answer says the connection's token is expired, invalid or revoked. */
  isTokenError(status: number, body: Buffer): boolean;
  /**
   * New credentials for a refreshable or minted connection; never called for long-lived tokens. No caller can
   * cancel it: once sent, a rotating refresh is read to the end, because the platform has already spent the old
   * refresh token.
   */
  renew?(credentials: ConnectionCredentials): Promise<RenewOutcome>;
}
