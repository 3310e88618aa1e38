import { z } from 'zod';
import { durationMsFromEnv, listFromEnv } from '@gateway/config';

const DEV_SHOP_APP_KEY = '6sandboxshop1';
const DEV_SHOP_APP_SECRET = '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f';
const DAY_MS = 86_400_000;

/** video-shop's section of the sandbox environment (config.ts merges it into ConfigSchema). */
export const VIDEO_SHOP_ENV = {
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
};
