import { upstreamPathOf } from '@gateway/catalogue';
import type { QpsGuard } from '../../limits/qps-guard';
import { failure } from '../../proxy/proxy-failure';
import type {
  ConnectionCredentials,
  PlatformCall,
  PreparedCall,
  ProviderAdapter,
  RenewOutcome,
  TokenLifecycle,
} from '../provider-adapter';
import { filterQuery } from '../query-filter';
import { clientAssertion, type ApiUser } from './search-ads.assertion';

/** The two reads of the user, not of an organization: the platform wants no X-AP-Context there. */
const WITHOUT_CONTEXT: ReadonlySet<string> = new Set(['/api/v5/acls', '/api/v5/me']);
const NO_OWNED_PARAMS: ReadonlySet<string> = new Set();
/** Token endpoint errors that say the API user or its key is gone: the customer must connect again. */
const REFUSALS: ReadonlySet<string> = new Set(['invalid_client', 'invalid_grant', 'unauthorized_client']);
const RENEW_TIMEOUT_MS = 10_000;

export interface SearchAdsAdapterOptions {
  /** API host, e.g. https://api.searchads.apple.com (the sandbox's /search-ads locally). */
  apiBaseUrl: string;
  /** Token host, e.g. https://appleid.apple.com (the sandbox's /search-ads-auth locally). */
  authBaseUrl: string;
  guard: QpsGuard;
  renewAheadMs: number;
  now?: () => number;
  fetch?: typeof fetch;
}

/**
 * search-ads (Campaign Management API v5): a Bearer token minted from a client assertion that the connection's own
 * ES256 key signs, and `X-AP-Context: orgId=<the connection's organization>`. The caller's Authorization and
 * X-AP-Context never pass (no caller header does). Tokens live an hour; there is no refresh token, a new one is
 * minted instead.
 */
export class SearchAdsAdapter implements ProviderAdapter {
  readonly provider = 'search-ads' as const;
  readonly guard: QpsGuard;
  readonly responseHeaders: readonly string[] = ['x-rate-limit', 'x-apple-jingle-correlation-key'];
  readonly tokens: TokenLifecycle;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly tokenUrl: string;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;

  constructor(options: SearchAdsAdapterOptions) {
    const url = new URL(options.apiBaseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.tokenUrl = `${options.authBaseUrl.replace(/\/+$/, '')}/auth/oauth2/token`;
    this.guard = options.guard;
    this.tokens = { kind: 'minted', renewAheadMs: options.renewAheadMs };
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
  }

  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall {
    const filtered = filterQuery(call.query, NO_OWNED_PARAMS);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const path = upstreamPathOf(call.endpoint, call.path);
    const headers: Record<string, string> = {
      authorization: `Bearer ${credentials.access_token}`,
      'accept-encoding': 'identity',
      accept: 'application/json',
    };
    if (!WITHOUT_CONTEXT.has(call.endpoint.path)) {
      const orgId = credentials.attributes?.['org_id'];
      if (orgId === undefined) {
        return { ok: false, failure: failure('connection_unavailable', 'the connection has no organization') };
      }
      headers['x-ap-context'] = `orgId=${orgId}`;
    }
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    return {
      ok: true,
      request: {
        method: call.method,
        origin: this.origin,
        pathAndQuery: `${this.basePath}${path}${filtered.query === '' ? '' : `?${filtered.query}`}`,
        headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
      },
    };
  }

  isTokenError(status: number): boolean {
    return status === 401;
  }

  /** Minted, not rotated: an answer given up costs nothing (the next mint works), so a slow one is abandoned. */
  async renew(credentials: ConnectionCredentials): Promise<RenewOutcome> {
    const user = apiUserOf(credentials);
    if (user === undefined) return { ok: false, reason: 'refused', detail: 'the connection has no API user key' };
    let status: number;
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown };
    try {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: user.clientId,
        client_secret: await clientAssertion(user, this.now()),
        scope: 'searchadsorg',
      });
      const response = await this.fetch(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: body.toString(),
        signal: AbortSignal.timeout(RENEW_TIMEOUT_MS),
      });
      status = response.status;
      answer = (await response.json()) as typeof answer;
    } catch {
      return { ok: false, reason: 'unavailable', detail: 'the platform token endpoint could not be reached' };
    }
    if (status === 200 && typeof answer.access_token === 'string') {
      const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : 3600;
      return {
        ok: true,
        credentials: {
          ...credentials,
          access_token: answer.access_token,
          access_token_expires_at: new Date(this.now() + expiresIn * 1000).toISOString(),
        },
      };
    }
    const error = typeof answer.error === 'string' ? answer.error : '';
    if (status >= 400 && status < 500 && REFUSALS.has(error)) {
      return { ok: false, reason: 'refused', detail: `the platform refused the client assertion (${error})` };
    }
    return { ok: false, reason: 'unavailable', detail: `the platform token endpoint answered HTTP ${status}` };
  }
}

function apiUserOf(credentials: ConnectionCredentials): ApiUser | undefined {
  const attributes = credentials.attributes ?? {};
  const { client_id: clientId, team_id: teamId, key_id: keyId, private_key: privateKeyPem } = attributes;
  if (!clientId || !teamId || !keyId || !privateKeyPem) return undefined;
  return { clientId, teamId, keyId, privateKeyPem };
}
