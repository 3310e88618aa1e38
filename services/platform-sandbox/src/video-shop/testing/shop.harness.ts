import { createHmac } from 'node:crypto';
import type { SandboxConfig } from '../../config';
import { startSandbox, TestClock, type Harness } from '../../testing/sandbox.harness';
import { SANDBOX_SELLERS, type SandboxSeller } from '../sandbox-sellers';

export const NORTHWIND = SANDBOX_SELLERS[0] as SandboxSeller;
export const LUMEN = SANDBOX_SELLERS[1] as SandboxSeller;
export const PIXEL_PANTRY = SANDBOX_SELLERS[2] as SandboxSeller;

export interface ShopEnvelope<T = Record<string, unknown>> {
  code: number;
  message: string;
  request_id: string;
  data: T;
}

export interface MintedGrant {
  app_key: string;
  access_token: string;
  access_token_expire_in: number;
  refresh_token: string;
  refresh_token_expire_in: number;
  open_id: string;
  seller_name: string;
  seller_base_region: string;
  granted_scopes: string[];
  shops: { id: string; name: string; region: string; seller_type: string; cipher: string; code: string }[];
}

/** The sandbox with the video-shop QPS limit off unless a test sets one. */
export function startShopSandbox(
  overrides: Partial<Record<keyof SandboxConfig, string>> = {},
  clock = new TestClock(),
): Promise<Harness> {
  return startSandbox({ SANDBOX_VIDEO_SHOP_APP_QPS: '0', ...overrides }, clock);
}

export async function mintShopGrant(
  h: Harness,
  body: { open_id?: string; shop_id?: string; scopes?: string[] },
): Promise<MintedGrant> {
  const response = await fetch(`${h.url}/_sandbox/video-shop/grants`, { method: 'POST', body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`grant failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as MintedGrant;
}

/**
 * The signature as a client of the real platform computes it from the documentation, kept apart from the
 * sandbox's own implementation so the two check each other.
 */
export function clientSign(secret: string, path: string, params: Record<string, string>, body = ''): string {
  const keys = Object.keys(params)
    .filter((key) => key !== 'sign' && key !== 'access_token')
    .sort();
  const input = path + keys.map((key) => `${key}${params[key]}`).join('') + body;
  return createHmac('sha256', secret)
    .update(secret + input + secret)
    .digest('hex');
}

export interface CallOptions {
  query?: Record<string, string>;
  /** Sent as JSON; a string is sent as is. */
  body?: unknown;
  token?: string;
  shopCipher?: string;
  /** Unix seconds; defaults to the sandbox clock. */
  timestamp?: number;
  /** Replaces the computed signature. */
  sign?: string;
  secret?: string;
  headers?: Record<string, string>;
}

export interface CallResult<T> {
  status: number;
  body: ShopEnvelope<T>;
}

/** Signs and sends one API call the way a client of the real platform does. */
export async function shopCall<T = Record<string, unknown>>(
  h: Harness,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const params: Record<string, string> = {
    app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
    timestamp: String(options.timestamp ?? Math.floor(h.clock.ms / 1000)),
    ...(options.shopCipher === undefined ? {} : { shop_cipher: options.shopCipher }),
    ...options.query,
  };
  const body =
    options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  params.sign =
    options.sign ?? clientSign(options.secret ?? h.config.SANDBOX_VIDEO_SHOP_APP_SECRET, path, params, body);
  const headers: Record<string, string> = {
    ...(options.token === undefined ? {} : { 'x-tts-access-token': options.token }),
    ...(body === '' ? {} : { 'Content-Type': 'application/json' }),
    ...options.headers,
  };
  const response = await fetch(`${h.url}/video-shop${path}?${new URLSearchParams(params).toString()}`, {
    method,
    headers,
    body: body === '' ? undefined : body,
  });
  return { status: response.status, body: (await response.json()) as ShopEnvelope<T> };
}

/** GET on the auth host's token paths. */
export async function tokenCall<T = Record<string, unknown>>(
  h: Harness,
  path: '/api/v2/token/get' | '/api/v2/token/refresh',
  params: Record<string, string>,
): Promise<CallResult<T>> {
  const response = await fetch(`${h.url}/video-shop-auth${path}?${new URLSearchParams(params).toString()}`);
  return { status: response.status, body: (await response.json()) as ShopEnvelope<T> };
}

export function refreshWith(h: Harness, refreshToken: string, secret = h.config.SANDBOX_VIDEO_SHOP_APP_SECRET) {
  return tokenCall<MintedGrant>(h, '/api/v2/token/refresh', {
    app_key: h.config.SANDBOX_VIDEO_SHOP_APP_KEY,
    app_secret: secret,
    refresh_token: refreshToken,
    grant_type: 'refresh_token',
  });
}
