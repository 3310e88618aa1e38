import { z } from 'zod';
import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv } from '@gateway/config';

const DEV_APP_ID = '7300000000000000001';
const DEV_APP_SECRET = '5b1e4d0c3a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d';
const DEV_SHOP_APP_KEY = '6sandboxshop1';
const DEV_SHOP_APP_SECRET = '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f';
const DAY_MS = 86_400_000;
// Public dev values of the three marketplace partner apps (one platform, three app types).
const DEV_MARKETPLACE_SELLER_KEY = '6d61726b6574706c6163652d73656c6c65722d6170702d6b65792d30303031aa';
const DEV_MARKETPLACE_ADS_KEY = '6d61726b6574706c6163652d6164732d6170702d6b65792d3030303230303032';
const DEV_MARKETPLACE_AFFILIATE_KEY = '6d61726b6574706c6163652d616666696c696174652d6b65792d303030330003';
const partnerId = (fallback: string) =>
  z
    .string()
    .regex(/^\d{1,12}$/, 'must be digits, like a real partner_id')
    .default(fallback);
const partnerKey = (fallback: string) =>
  z
    .string()
    .regex(/^[0-9a-f]{16,128}$/, 'lowercase hex')
    .default(fallback);

export const ConfigSchema = z.object({
  ...commonEnv,
  /** Port of the simulated platform host; 0 picks a free one and the listening line reports it. */
  PORT: portFromEnv(4600),
  /** app_id of the gateway's own app at the platform (the one the provider-proxy sends). */
  SANDBOX_APP_ID: z.string().regex(/^\d+$/, 'must be digits, like a real app_id').default(DEV_APP_ID),
  /** Secret of that app; checked on /oauth2/access_token/ and /oauth2/advertiser/get/. Never logged. */
  SANDBOX_APP_SECRET: z.string().min(8).default(DEV_APP_SECRET),
  /** Requests per second the app may make (platform "Premium" tier is 20); 0 turns the limit off. */
  SANDBOX_APP_QPS: z.coerce.number().int().min(0).default(20),
  /** Allowed redirect_uri prefixes of the authorization page, comma-separated; empty allows any. */
  SANDBOX_APP_REDIRECT_URIS: listFromEnv([]),
  /** Added delay before each /open_api answer, to imitate the real platform's latency in benchmarks. */
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  /** How many requests the test/dev request log keeps (oldest dropped first). */
  SANDBOX_REQUEST_LOG_LIMIT: z.coerce.number().int().positive().default(5000),
  /** Lifetime of an auth_code of the authorization page; the platform uses one hour. */
  SANDBOX_AUTH_CODE_TTL_MS: durationMsFromEnv(3_600_000),
  /** app_key of the gateway's app at the video-shop platform (TikTok Shop Partner API); a public dev value. */
  SANDBOX_VIDEO_SHOP_APP_KEY: z
    .string()
    .regex(/^[0-9a-z]{6,32}$/, 'lowercase letters and digits')
    .default(DEV_SHOP_APP_KEY),
  /** app_secret of that app: the HMAC key of every request signature and checked on the token paths. Never logged. */
  SANDBOX_VIDEO_SHOP_APP_SECRET: z.string().min(8).default(DEV_SHOP_APP_SECRET),
  /** Allowed redirect_uri prefixes of the video-shop authorization page, comma-separated; empty allows any. */
  SANDBOX_VIDEO_SHOP_REDIRECT_URIS: listFromEnv([]),
  /** Lifetime of a video-shop access token (the platform's is about a week); tests shorten it or move the clock. */
  SANDBOX_VIDEO_SHOP_ACCESS_TOKEN_TTL_MS: durationMsFromEnv(7 * DAY_MS),
  /** Lifetime of a video-shop refresh token, counted from its issue (each refresh issues a new one). */
  SANDBOX_VIDEO_SHOP_REFRESH_TOKEN_TTL_MS: durationMsFromEnv(30 * DAY_MS),
  /** Requests per second the video-shop app may make on the API host; 0 turns the limit off (benchmarks). */
  SANDBOX_VIDEO_SHOP_APP_QPS: z.coerce.number().int().min(0).default(50),
  /** partner_id of the gateway's seller (ERP) app at the marketplace platform (Shopee Open Platform v2). */
  SANDBOX_MARKETPLACE_SELLER_PARTNER_ID: partnerId('2001001'),
  /** partner_key of that app: the HMAC key of its request signatures. Never logged. */
  SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY: partnerKey(DEV_MARKETPLACE_SELLER_KEY),
  /** partner_id of the gateway's ads app at the marketplace platform. */
  SANDBOX_MARKETPLACE_ADS_PARTNER_ID: partnerId('2001002'),
  /** partner_key of the ads app. Never logged. */
  SANDBOX_MARKETPLACE_ADS_PARTNER_KEY: partnerKey(DEV_MARKETPLACE_ADS_KEY),
  /** partner_id of the gateway's affiliate (AMS) app at the marketplace platform. */
  SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_ID: partnerId('2001003'),
  /** partner_key of the affiliate app. Never logged. */
  SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_KEY: partnerKey(DEV_MARKETPLACE_AFFILIATE_KEY),
  /** Lifetime of a marketplace access token (the platform's is 4 hours); tests shorten it or move the clock. */
  SANDBOX_MARKETPLACE_ACCESS_TOKEN_TTL_MS: durationMsFromEnv(4 * 3_600_000),
  /** Lifetime of a marketplace refresh token, from its issue (the platform's is 30 days; each refresh issues one). */
  SANDBOX_MARKETPLACE_REFRESH_TOKEN_TTL_MS: durationMsFromEnv(30 * DAY_MS),
  /** Lifetime of a code of the marketplace authorization page (the platform's is 10 minutes). */
  SANDBOX_MARKETPLACE_AUTH_CODE_TTL_MS: durationMsFromEnv(600_000),
  /**
   * Fault control: how long the answer of a marketplace token refresh is held back after the refresh is done (the
   * old refresh token already spent). Crash tests kill a gateway replica inside this window. 0 in normal use.
   */
  SANDBOX_MARKETPLACE_REFRESH_ANSWER_DELAY_MS: z.coerce.number().int().min(0).default(0),
  /** Requests per second each marketplace app may make; 0 turns the limit off (benchmarks). */
  SANDBOX_MARKETPLACE_APP_QPS: z.coerce.number().int().min(0).default(50),
  /**
   * Shop calls each marketplace app may make per shop and UTC day; beyond it the platform answers error_limit. The
   * default is far above what a test, benchmark or chaos run makes; tests set a small one through
   * /_sandbox/marketplace/call-limit.
   * 0 turns the limit off.
   */
  SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT: z.coerce.number().int().min(0).default(100_000_000),
  /** Allowed redirect prefixes of the marketplace authorization page, comma-separated; empty allows any http(s). */
  SANDBOX_MARKETPLACE_REDIRECT_URIS: listFromEnv([]),
  /** Lifetime in seconds of a search-ads access token (the platform's is 3600, its expires_in); tests shorten it. */
  SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S: z.coerce.number().int().positive().default(3600),
  /** Requests per API user and hour on the search-ads API host (429 beyond, with X-Rate-Limit); 0 turns it off. */
  SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT: z.coerce.number().int().min(0).default(0),
});

export type SandboxConfig = z.infer<typeof ConfigSchema>;
