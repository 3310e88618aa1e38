import { z } from 'zod';
import { durationMsFromEnv, listFromEnv } from '@gateway/config';

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

/** marketplace's section of the sandbox environment (config.ts merges it into ConfigSchema). */
export const MARKETPLACE_ENV = {
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
};
