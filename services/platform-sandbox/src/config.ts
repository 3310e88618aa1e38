import { z } from 'zod';
import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv } from '@gateway/config';

const DEV_APP_ID = '7300000000000000001';
const DEV_APP_SECRET = '5b1e4d0c3a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d';
const DEV_SHOP_APP_KEY = '6sandboxshop1';
const DEV_SHOP_APP_SECRET = '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f';
const DAY_MS = 86_400_000;

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
});

export type SandboxConfig = z.infer<typeof ConfigSchema>;
