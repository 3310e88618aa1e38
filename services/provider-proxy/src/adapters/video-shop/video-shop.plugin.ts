import { durationMsFromEnv } from '@gateway/config';
import { z } from 'zod';
import { appGuard, type ProviderPlugin } from '../provider-plugin';
import { VideoShopAdapter } from './video-shop.adapter';

const env = {
  /** API base of video-shop; the sandbox's /video-shop locally (docs/providers.md). */
  VIDEO_SHOP_API_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://open-api.tiktokglobalshop.com')
    .transform((value) => value.replace(/\/+$/, '')),
  /** Auth base of video-shop (token refresh); the sandbox's /video-shop-auth locally. */
  VIDEO_SHOP_AUTH_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://auth.tiktok-shops.com')
    .transform((value) => value.replace(/\/+$/, '')),
  /** The gateway's app at video-shop; unset: video-shop is not served by this deployment. */
  VIDEO_SHOP_APP_KEY: z.string().min(1).optional(),
  /** Secret of that app: signs every call. Never logged. */
  VIDEO_SHOP_APP_SECRET: z.string().min(1).optional(),
  /** Requests per second the app may send to video-shop; 0 = no guard. */
  VIDEO_SHOP_APP_QPS: z.coerce.number().min(0).default(20),
  /** Requests the QPS guard lets through back to back after an idle period. */
  VIDEO_SHOP_APP_BURST: z.coerce.number().int().min(1).default(1),
  /** Access tokens (about 7 days) are refreshed when they have less than this left. */
  VIDEO_SHOP_RENEW_AHEAD_MS: durationMsFromEnv(3_600_000),
};

type Env = z.infer<z.ZodObject<typeof env>>;

export const VIDEO_SHOP_PLUGIN: ProviderPlugin<Env> = {
  provider: 'video-shop',
  env,
  create: (config, shared) =>
    config.VIDEO_SHOP_APP_KEY === undefined || config.VIDEO_SHOP_APP_SECRET === undefined
      ? undefined
      : new VideoShopAdapter({
          apiBaseUrl: config.VIDEO_SHOP_API_URL,
          authBaseUrl: config.VIDEO_SHOP_AUTH_URL,
          appKey: config.VIDEO_SHOP_APP_KEY,
          appSecret: config.VIDEO_SHOP_APP_SECRET,
          guard: appGuard(config.VIDEO_SHOP_APP_QPS, config.VIDEO_SHOP_APP_BURST, shared),
          renewAheadMs: config.VIDEO_SHOP_RENEW_AHEAD_MS,
          now: shared.now,
        }),
};
