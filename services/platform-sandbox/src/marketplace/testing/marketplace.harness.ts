import { createHmac } from 'node:crypto';
import type { SandboxConfig } from '../../config';
import { startSandbox, TestClock, type Harness } from '../../testing/sandbox.harness';
import { MARKET_SHOPS, type MarketShop } from '../sandbox-shops';

export const SG_SHOP = MARKET_SHOPS[0] as MarketShop;
export const MY_CB_SHOP = MARKET_SHOPS[1] as MarketShop;
export const TH_SHOP = MARKET_SHOPS[2] as MarketShop;

export type AppName = 'seller' | 'ads' | 'affiliate';

export interface PartnerApp {
  partner_id: number;
  partner_key: string;
}

export function partnerApp(h: Harness, app: AppName): PartnerApp {
  const c = h.config;
  const [id, key] =
    app === 'seller'
      ? [c.SANDBOX_MARKETPLACE_SELLER_PARTNER_ID, c.SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY]
      : app === 'ads'
        ? [c.SANDBOX_MARKETPLACE_ADS_PARTNER_ID, c.SANDBOX_MARKETPLACE_ADS_PARTNER_KEY]
        : [c.SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_ID, c.SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_KEY];
  return { partner_id: Number(id), partner_key: key };
}

/** The sandbox with the marketplace QPS limit off unless a test sets one. */
export function startMarketSandbox(
  overrides: Partial<Record<keyof SandboxConfig, string>> = {},
  clock = new TestClock(),
): Promise<Harness> {
  return startSandbox({ SANDBOX_MARKETPLACE_APP_QPS: '0', ...overrides }, clock);
}

export interface MintedMarketGrant {
  partner_id: number;
  app_type: AppName;
  shop_id: number;
  access_token: string;
  refresh_token: string;
  expire_in: number;
}

export async function mintMarketGrant(h: Harness, app: AppName, shop: MarketShop): Promise<MintedMarketGrant> {
  const response = await fetch(`${h.url}/_sandbox/marketplace/grants`, {
    method: 'POST',
    body: JSON.stringify({ partner_id: partnerApp(h, app).partner_id, shop_id: shop.shop_id }),
  });
  if (response.status !== 201) throw new Error(`grant failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as MintedMarketGrant;
}

/**
 * The sign as the platform's documentation tells a client to compute it, written apart from the sandbox's
 * own implementation so the two check each other.
 */
export function clientSign(partnerKey: string, parts: (string | number)[]): string {
  return createHmac('sha256', partnerKey).update(parts.join('')).digest('hex');
}

export interface MarketCallOptions {
  /** Values given as arrays are sent as repeated parameters. */
  query?: Record<string, string | number | (string | number)[]>;
  body?: unknown;
  /** A shop call when present (access_token and shop_id are added and signed). */
  grant?: { access_token: string; shop_id: number };
  /** Unix seconds; defaults to the sandbox clock. */
  timestamp?: number;
  sign?: string;
  /** Leave these common parameters out of the query (they are still signed as given). */
  omit?: string[];
}

export interface MarketAnswer<T = Record<string, unknown>> {
  status: number;
  /** The raw body text: ids above 2^32 must appear there as bare JSON numbers. */
  text: string;
  body: T & { request_id: string; error: string; message: string; warning?: string };
}

/** Signs and sends one call the way a client of the real platform does. */
export async function marketCall<T = Record<string, unknown>>(
  h: Harness,
  app: AppName,
  method: 'GET' | 'POST',
  path: string,
  options: MarketCallOptions = {},
): Promise<MarketAnswer<T>> {
  const { partner_id: partnerId, partner_key: key } = partnerApp(h, app);
  const timestamp = options.timestamp ?? Math.floor(h.clock.ms / 1000);
  const grant = options.grant;
  const parts: (string | number)[] = grant
    ? [partnerId, path, timestamp, grant.access_token, grant.shop_id]
    : [partnerId, path, timestamp];
  const search = new URLSearchParams();
  const common: Record<string, string> = {
    partner_id: String(partnerId),
    timestamp: String(timestamp),
    sign: options.sign ?? clientSign(key, parts),
    ...(grant ? { access_token: grant.access_token, shop_id: String(grant.shop_id) } : {}),
  };
  for (const [name, value] of Object.entries(common)) if (!options.omit?.includes(name)) search.append(name, value);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const response = await fetch(`${h.url}/marketplace${path}?${search.toString()}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as MarketAnswer<T>['body'] };
}

export function isoDay(ms: number, offsetDays: number): { day: number; ddmmyyyy: string; yyyymmdd: string } {
  const day = Math.floor(ms / 86_400_000) + offsetDays;
  const iso = new Date(day * 86_400_000).toISOString();
  const [y, m, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  return { day, ddmmyyyy: `${d}-${m}-${y}`, yyyymmdd: `${y}${m}${d}` };
}
