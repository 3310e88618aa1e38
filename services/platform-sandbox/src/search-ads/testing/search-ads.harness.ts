import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { SandboxConfig } from '../../config';
import { startSandbox, TestClock, type Harness } from '../../testing/sandbox.harness';
import { jose } from '../jose.runtime';
import { SEARCH_ADS_ORGS, type SearchAdsOrg } from '../sandbox-orgs';

export const US_ORG = SEARCH_ADS_ORGS[0] as SearchAdsOrg;
export const EU_ORG = SEARCH_ADS_ORGS[1] as SearchAdsOrg;
export const GB_ORG = SEARCH_ADS_ORGS[2] as SearchAdsOrg;
export const AUDIENCE = 'https://appleid.apple.com';

export function startSearchAdsSandbox(
  overrides: Partial<Record<keyof SandboxConfig, string>> = {},
  clock = new TestClock(),
): Promise<Harness> {
  return startSandbox(overrides, clock);
}

/** A client of the real platform: its own key pair, and what the platform showed after the key upload. */
export interface ApiClient {
  privateKey: KeyObject;
  publicKeyPem: string;
  client_id: string;
  team_id: string;
  key_id: string;
  org_ids: number[];
}

export function newKeyPair(): { privateKey: KeyObject; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

export async function registerClient(h: Harness, orgIds?: number[]): Promise<ApiClient> {
  const keys = newKeyPair();
  const response = await fetch(`${h.url}/_sandbox/search-ads/api-users`, {
    method: 'POST',
    body: JSON.stringify({ public_key_pem: keys.publicKeyPem, ...(orgIds ? { org_ids: orgIds } : {}) }),
  });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${await response.text()}`);
  return { ...keys, ...((await response.json()) as Omit<ApiClient, 'privateKey' | 'publicKeyPem'>) };
}

export interface AssertionOptions {
  key?: KeyObject;
  kid?: string;
  sub?: string;
  iss?: string;
  aud?: string;
  /** Unix seconds; default the sandbox clock. */
  iat?: number;
  exp?: number;
}

/** The client secret as the platform's documentation tells a client to build it, signed with jose. */
export function clientSecret(h: Harness, client: ApiClient, options: AssertionOptions = {}): Promise<string> {
  const iat = options.iat ?? Math.floor(h.clock.ms / 1000);
  return new jose.SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? client.key_id })
    .setSubject(options.sub ?? client.client_id)
    .setIssuer(options.iss ?? client.team_id)
    .setAudience(options.aud ?? AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(options.exp ?? iat + 86_400 * 180)
    .sign(options.key ?? client.privateKey);
}

export async function requestToken(
  h: Harness,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${h.url}/search-ads-auth/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

export async function tokenFor(h: Harness, client: ApiClient, options: AssertionOptions = {}) {
  return requestToken(h, {
    grant_type: 'client_credentials',
    client_id: client.client_id,
    client_secret: await clientSecret(h, client, options),
    scope: 'searchadsorg',
  });
}

export async function accessToken(h: Harness, client: ApiClient): Promise<string> {
  const { status, body } = await tokenFor(h, client);
  if (status !== 200) throw new Error(`token failed: ${status} ${JSON.stringify(body)}`);
  return body.access_token as string;
}

export interface ApiAnswer<T = unknown> {
  status: number;
  headers: Headers;
  /** The raw body: ids above 2^32 must be bare JSON numbers here. */
  text: string;
  body: {
    data: T;
    pagination: { totalResults: number; startIndex: number; itemsPerPage: number } | null;
    error: { errors: { messageCode: string; message: string; field: string }[] } | null;
  };
}

/** One call to https://api.searchads.apple.com/api/v5<path> as a client sends it. */
export async function apiCall<T = unknown>(
  h: Harness,
  method: string,
  path: string,
  options: { token?: string; orgId?: number; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  if (options.orgId !== undefined) headers['X-AP-Context'] = `orgId=${options.orgId}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${h.url}/search-ads/api/v5${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as ApiAnswer<T>['body'] };
}
