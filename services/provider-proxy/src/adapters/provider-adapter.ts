import type { EndpointSpec, ProviderId } from '@gateway/catalogue';
import type { QpsGuard } from '../limits/qps-guard';
import type { ProxyFailure } from '../proxy/proxy-failure';
import type { UpstreamRequest } from '../upstream/upstream.client';

/** The decrypted plaintext of a connection's credentials (the fields the adapters use). */
export interface ConnectionCredentials {
  access_token: string;
  refresh_token?: string;
}

export type PreparedCall = { ok: true; request: UpstreamRequest } | { ok: false; failure: ProxyFailure };

/**
 * Everything platform-specific about calling one provider: how credentials are injected (header, query,
 * signature), how the app is rate-guarded and how the platform says a token is dead. The proxy core does
 * the rest (allowlist, connection, deadline, retries, streaming) the same way for every provider.
 */
export interface ProviderAdapter {
  readonly provider: ProviderId;
  /** Every call of this provider's app passes this guard (ARCHITECTURE: per-platform QPS guards). */
  readonly guard: QpsGuard;
  /**
   * The platform request for an allowed endpoint: the caller's query with service-owned parameters
   * dropped, and the connection's and the app's credentials added. No caller header is ever forwarded.
   */
  prepare(endpoint: EndpointSpec, rawQuery: string, credentials: ConnectionCredentials): PreparedCall;
  /** True when a complete (small) answer says the connection's token was revoked or is wrong. */
  isRevokedToken(status: number, body: Buffer): boolean;
}
