import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { jose } from './jose.runtime';
import { GrantEnvReader, type KeyPairGrantPlugin } from './grant-plugin';
import { GrantExchangeError, redacted, type GrantedAccount } from './platform-grant';

/**
 * The search-ads grant (docs/providers.md, search-ads "Grant"; docs/portal.md). Not a redirect flow: the platform has
 * no app of the gateway. Each connection is its own API user at the platform, whose credential is an EC P-256 key
 * pair. The portal makes the pair and shows only the public key; the customer registers it as an API user on the
 * platform and brings back the client id, team id and key id. A token minted with an ES256 client assertion proves
 * the registration, and `/api/v5/acls` lists the organizations the customer picks one of: one connection per org.
 */

export interface SearchAdsGrantOptions {
  /** API host, e.g. https://api.searchads.apple.com (the sandbox's /search-ads locally). */
  apiBaseUrl: string;
  /** Token host, e.g. https://appleid.apple.com (the sandbox's /search-ads-auth locally). */
  authBaseUrl: string;
  /** Clock of the assertion and of the stored expiry (tests). */
  now?: () => number;
  fetch?: typeof fetch;
}

/** The API user the customer registered on the platform with the portal's public key. */
export interface SearchAdsApiUser {
  clientId: string;
  teamId: string;
  keyId: string;
  /** PKCS #8 PEM of the connection's private key. Never logged, never answered. */
  privateKeyPem: string;
}

export interface SearchAdsKeyPair {
  /** SPKI PEM: what the customer pastes on the platform's API-user page. */
  publicKeyPem: string;
  /** PKCS #8 PEM; stays in the portal (sealed at rest). */
  privateKeyPem: string;
}

export interface SearchAdsToken {
  accessToken: string;
  /** ISO 8601 instant. */
  expiresAt: string;
}

/** One organization of `/api/v5/acls`. */
export interface SearchAdsOrg {
  orgId: number;
  orgName: string;
  currency: string;
  timeZone: string;
}

/**
 * Why the platform said no. `invalid_client`: the client id, team id or key id do not match, or the key registered
 * for them is not this one. `refused`: another OAuth error. `unavailable`: the platform could not be used.
 */
export type SearchAdsRefusal = 'invalid_client' | 'refused' | 'unavailable';

export class SearchAdsGrantError extends GrantExchangeError {
  constructor(
    readonly reason: SearchAdsRefusal,
    platformCode: number,
    message: string,
  ) {
    super(platformCode, message);
    this.name = 'SearchAdsGrantError';
  }
}

export interface SearchAdsGrant {
  readonly provider: 'search-ads';
  /** Mints a token with the API user's key (client credentials, ES256 assertion); proves the registration. */
  mintToken(user: SearchAdsApiUser): Promise<SearchAdsToken>;
  /** The organizations the API user may access (`GET /api/v5/acls`, no X-AP-Context). */
  listOrgs(accessToken: string): Promise<SearchAdsOrg[]>;
  /** The connection of one organization: what provider-proxy's search-ads adapter reads. */
  grantedAccount(user: SearchAdsApiUser, token: SearchAdsToken, orgId: number): GrantedAccount;
}

export const SEARCH_ADS_TOKEN_PATH = '/auth/oauth2/token';
export const SEARCH_ADS_ACLS_PATH = '/api/v5/acls';
/** The token audience, the same for every API user. */
export const SEARCH_ADS_ASSERTION_AUDIENCE = 'https://appleid.apple.com';
/** The assertion is made for one token request. */
const ASSERTION_LIFETIME_S = 300;
const DEFAULT_TOKEN_LIFETIME_S = 3600;
const TIMEOUT_MS = 15_000;

const generateEcKeyPair = promisify(generateKeyPair);

/** A fresh EC P-256 key pair for one API user (the platform's key type for ES256 client assertions). */
export async function generateSearchAdsKeyPair(): Promise<SearchAdsKeyPair> {
  const { publicKey, privateKey } = await generateEcKeyPair('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** The ES256 client assertion: header {alg, kid}, claims {sub: clientId, iss: teamId, aud, iat, exp}. */
export async function searchAdsClientAssertion(user: SearchAdsApiUser, nowMs: number): Promise<string> {
  const key = await jose.importPKCS8(user.privateKeyPem, 'ES256');
  const iat = Math.floor(nowMs / 1000);
  return new jose.SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: user.keyId })
    .setSubject(user.clientId)
    .setIssuer(user.teamId)
    .setAudience(SEARCH_ADS_ASSERTION_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_LIFETIME_S)
    .sign(key);
}

function under(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const value = (await response.json()) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function searchAdsGrant(options: SearchAdsGrantOptions): SearchAdsGrant {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const tokenUrl = under(options.authBaseUrl, SEARCH_ADS_TOKEN_PATH);
  const aclsUrl = under(options.apiBaseUrl, SEARCH_ADS_ACLS_PATH);

  return {
    provider: 'search-ads',

    async mintToken(user) {
      const assertion = await searchAdsClientAssertion(user, now());
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: user.clientId,
        client_secret: assertion,
        scope: 'searchadsorg',
      });
      let response: Response;
      try {
        response = await doFetch(tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: body.toString(),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch {
        throw new SearchAdsGrantError('unavailable', 0, 'the token endpoint could not be reached');
      }
      const answer = await readJson(response);
      const accessToken = answer?.access_token;
      if (response.ok && typeof accessToken === 'string' && accessToken !== '') {
        const expiresIn =
          typeof answer?.expires_in === 'number' && answer.expires_in > 0
            ? answer.expires_in
            : DEFAULT_TOKEN_LIFETIME_S;
        return { accessToken, expiresAt: new Date(now() + expiresIn * 1000).toISOString() };
      }
      // RFC 6749 section 5.2: {"error": "invalid_client"} when the client (here the assertion) is not accepted.
      const error = typeof answer?.error === 'string' ? answer.error : '';
      const message = redacted(`token endpoint: HTTP ${response.status} ${error || 'no error code'}`, [assertion]);
      if (error === 'invalid_client') throw new SearchAdsGrantError('invalid_client', response.status, message);
      if (response.status >= 400 && response.status < 500 && error !== '') {
        throw new SearchAdsGrantError('refused', response.status, message);
      }
      throw new SearchAdsGrantError('unavailable', response.status, message);
    },

    async listOrgs(accessToken) {
      let response: Response;
      try {
        response = await doFetch(aclsUrl, {
          headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch {
        throw new SearchAdsGrantError('unavailable', 0, 'the organization list could not be read');
      }
      const answer = await readJson(response);
      if (!response.ok || !Array.isArray(answer?.data)) {
        const reason: SearchAdsRefusal = response.status === 401 || response.status === 403 ? 'refused' : 'unavailable';
        throw new SearchAdsGrantError(reason, response.status, `acls: HTTP ${response.status}`);
      }
      const orgs: SearchAdsOrg[] = [];
      for (const entry of answer.data as unknown[]) {
        if (typeof entry !== 'object' || entry === null) continue;
        const { orgId, orgName, currency, timeZone } = entry as Record<string, unknown>;
        if (typeof orgId !== 'number' || !Number.isSafeInteger(orgId) || orgId <= 0) continue;
        orgs.push({
          orgId,
          orgName: typeof orgName === 'string' ? orgName : String(orgId),
          currency: typeof currency === 'string' ? currency : '',
          timeZone: typeof timeZone === 'string' ? timeZone : '',
        });
      }
      return orgs;
    },

    grantedAccount(user, token, orgId) {
      return {
        externalAccountIds: [String(orgId)],
        credentials: {
          access_token: token.accessToken,
          access_token_expires_at: token.expiresAt,
          attributes: {
            client_id: user.clientId,
            team_id: user.teamId,
            key_id: user.keyId,
            org_id: String(orgId),
            private_key: user.privateKeyPem,
          },
        },
      };
    },
  };
}

/**
 * The search-ads plug-in definition: always offered (no app of the gateway); SEARCH_ADS_API_URL (the organization
 * list) and SEARCH_ADS_AUTH_URL (client-credentials tokens) default to the platform's hosts.
 */
export const searchAdsGrantPlugin: KeyPairGrantPlugin<SearchAdsGrant> = {
  provider: 'search-ads',
  connect: 'key_pair',
  fromEnv(env) {
    const read = new GrantEnvReader(env);
    const apiBaseUrl = read.url('SEARCH_ADS_API_URL', 'https://api.searchads.apple.com');
    const authBaseUrl = read.url('SEARCH_ADS_AUTH_URL', 'https://appleid.apple.com');
    read.done();
    return searchAdsGrant({ apiBaseUrl, authBaseUrl });
  },
};
