import { z } from 'zod';
import { listFromEnv } from '@gateway/config';

const DEV_APP_ID = '7300000000000000001';
const DEV_APP_SECRET = '5b1e4d0c3a2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d';

/** video-ads' section of the sandbox environment (config.ts merges it into ConfigSchema). */
export const VIDEO_ADS_ENV = {
  /** app_id of the gateway's own app at the platform (the one the provider-proxy sends). */
  SANDBOX_APP_ID: z.string().regex(/^\d+$/, 'must be digits, like a real app_id').default(DEV_APP_ID),
  /** Secret of that app; checked on /oauth2/access_token/ and /oauth2/advertiser/get/. Never logged. */
  SANDBOX_APP_SECRET: z.string().min(8).default(DEV_APP_SECRET),
  /** Requests per second the app may make (platform "Premium" tier is 20); 0 turns the limit off. */
  SANDBOX_APP_QPS: z.coerce.number().int().min(0).default(20),
  /** Allowed redirect_uri prefixes of the authorization page, comma-separated; empty allows any. */
  SANDBOX_APP_REDIRECT_URIS: listFromEnv([]),
};
