import { CATALOGUE, type Catalogue, type EndpointSpec } from '@gateway/catalogue';
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

/** The context header of a version: `<header>: <key>=<the connection's attribute>`. */
export interface SearchAdsContext {
  /** Lower-case header name, e.g. x-ap-context. */
  header: string;
  /** The name before `=` in the value, e.g. orgId. */
  key: string;
  /** The connection attribute holding the id, e.g. org_id. */
  attribute: string;
  /** What the connection lacks when the attribute is absent, for the failure detail. */
  lacking: string;
}

/**
 * How one API version of search-ads is called, chosen per call by the endpoint's version (catalogue apiVersions,
 * by path prefix). Token minting is the same for every version (one API user, one token host).
 */
export interface SearchAdsVersionWiring {
  /** API host and base path of the version, from the configuration. */
  apiBaseUrl: string;
  context: SearchAdsContext;
  /** Endpoints (catalogue paths) of the user rather than of an account: sent without the context header. */
  withoutContext: readonly string[];
  /** The platform's answer headers worth passing on (lower-case). */
  responseHeaders: readonly string[];
}

/** The catalogue's name of the Campaign Management API v5. */
export const SEARCH_ADS_V5 = 'v5';

/** v5: `X-AP-Context: orgId=<org_id>`, but not on the two reads of the user (/acls, /me). */
export function searchAdsV5Wiring(apiBaseUrl: string): SearchAdsVersionWiring {
  return {
    apiBaseUrl,
    context: { header: 'x-ap-context', key: 'orgId', attribute: 'org_id', lacking: 'organization' },
    withoutContext: ['/api/v5/acls', '/api/v5/me'],
    responseHeaders: ['x-rate-limit', 'x-apple-jingle-correlation-key'],
  };
}

interface VersionRoute {
  origin: string;
  basePath: string;
  context: SearchAdsContext;
  withoutContext: ReadonlySet<string>;
  responseHeaders: readonly string[];
}

const NO_OWNED_PARAMS: ReadonlySet<string> = new Set();
/** Token endpoint errors that say the API user or its key is gone: the customer must connect again. */
const REFUSALS: ReadonlySet<string> = new Set(['invalid_client', 'invalid_grant', 'unauthorized_client']);
const RENEW_TIMEOUT_MS = 10_000;

export interface SearchAdsAdapterOptions {
  /** v5's API host, e.g. https://api.searchads.apple.com (the sandbox's /search-ads locally). */
  apiBaseUrl: string;
  /** The other API versions by catalogue version name; v5 is always wired, from apiBaseUrl. */
  versions?: Readonly<Record<string, SearchAdsVersionWiring>>;
  /** Where an endpoint's version and upstream path are read; the gateway's catalogue unless a test builds one. */
  catalogue?: Catalogue;
  /** Token host, e.g. https://appleid.apple.com (the sandbox's /search-ads-auth locally). */
  authBaseUrl: string;
  guard: QpsGuard;
  renewAheadMs: number;
  now?: () => number;
  fetch?: typeof fetch;
}

/**
 * search-ads: a Bearer token minted from a client assertion that the connection's own ES256 key signs, and the
 * version's context header (v5, the Campaign Management API: `X-AP-Context: orgId=<the connection's
 * organization>`). Each API version has its own host, context header and context-free paths (its wiring); the
 * endpoint's version picks it. The caller's Authorization and X-AP-Context never pass (no caller header does).
 * Tokens live an hour; there is no refresh token, a new one is minted instead.
 */
export class SearchAdsAdapter implements ProviderAdapter {
  readonly provider = 'search-ads' as const;
  readonly guard: QpsGuard;
  /** v5's; responseHeadersOf gives each endpoint its version's. */
  readonly responseHeaders: readonly string[];
  readonly tokens: TokenLifecycle;
  private readonly versions: ReadonlyMap<string, VersionRoute>;
  private readonly catalogue: Catalogue;
  private readonly tokenUrl: string;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;

  constructor(options: SearchAdsAdapterOptions) {
    const wirings = { ...options.versions, [SEARCH_ADS_V5]: searchAdsV5Wiring(options.apiBaseUrl) };
    this.versions = new Map(Object.entries(wirings).map(([name, wiring]) => [name, routeOf(wiring)]));
    this.responseHeaders = this.versions.get(SEARCH_ADS_V5)!.responseHeaders;
    this.catalogue = options.catalogue ?? CATALOGUE;
    this.tokenUrl = `${options.authBaseUrl.replace(/\/+$/, '')}/auth/oauth2/token`;
    this.guard = options.guard;
    this.tokens = { kind: 'minted', renewAheadMs: options.renewAheadMs };
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
  }

  prepare(call: PlatformCall, credentials: ConnectionCredentials): PreparedCall {
    const version = this.versionOf(call.endpoint);
    if (version === undefined) {
      return { ok: false, failure: failure('path_not_allowed', 'search-ads does not serve this API version yet') };
    }
    const filtered = filterQuery(call.query, NO_OWNED_PARAMS);
    if (!filtered.ok) return { ok: false, failure: failure('invalid_request', filtered.problem) };
    const path = this.catalogue.upstreamPathOf(call.endpoint, call.path);
    const headers: Record<string, string> = {
      authorization: `Bearer ${credentials.access_token}`,
      'accept-encoding': 'identity',
      accept: 'application/json',
    };
    if (!version.withoutContext.has(call.endpoint.path)) {
      const { header, key, attribute, lacking } = version.context;
      const id = credentials.attributes?.[attribute];
      if (id === undefined) {
        return { ok: false, failure: failure('connection_unavailable', `the connection has no ${lacking}`) };
      }
      headers[header] = `${key}=${id}`;
    }
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    return {
      ok: true,
      request: {
        method: call.method,
        origin: version.origin,
        pathAndQuery: `${version.basePath}${path}${filtered.query === '' ? '' : `?${filtered.query}`}`,
        headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
      },
    };
  }

  responseHeadersOf(endpoint: EndpointSpec): readonly string[] {
    return this.versionOf(endpoint)?.responseHeaders ?? this.responseHeaders;
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

  /** The wiring of the endpoint's API version; undefined for a version this deployment does not call. */
  private versionOf(endpoint: EndpointSpec): VersionRoute | undefined {
    const name = this.catalogue.apiVersionOf(endpoint)?.name;
    return name === undefined ? undefined : this.versions.get(name);
  }
}

function routeOf(wiring: SearchAdsVersionWiring): VersionRoute {
  const url = new URL(wiring.apiBaseUrl);
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    context: wiring.context,
    withoutContext: new Set(wiring.withoutContext),
    responseHeaders: wiring.responseHeaders,
  };
}

function apiUserOf(credentials: ConnectionCredentials): ApiUser | undefined {
  const attributes = credentials.attributes ?? {};
  const { client_id: clientId, team_id: teamId, key_id: keyId, private_key: privateKeyPem } = attributes;
  if (!clientId || !teamId || !keyId || !privateKeyPem) return undefined;
  return { clientId, teamId, keyId, privateKeyPem };
}
