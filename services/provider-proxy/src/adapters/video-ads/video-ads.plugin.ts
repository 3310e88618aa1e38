import { z } from 'zod';
import { appGuard, type ProviderPlugin } from '../provider-plugin';
import { VideoAdsAdapter } from './video-ads.adapter';

const env = {
  /** Origin of the video-ads platform; the sandbox locally (docs/providers.md). */
  VIDEO_ADS_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://business-api.tiktok.com')
    .transform((value) => value.replace(/\/+$/, '')),
  /** The gateway's own app at video-ads; sent as app_id on the advertiser listing. */
  VIDEO_ADS_APP_ID: z.string().min(1),
  /** Secret of that app. Never logged, never in a span or a failure detail. */
  VIDEO_ADS_APP_SECRET: z.string().min(1),
  /** Requests per second the app may send to video-ads (platform tiers: 8, 12, 20); 0 = no guard. */
  VIDEO_ADS_APP_QPS: z.coerce.number().min(0).default(20),
  /** Requests the QPS guard lets through back to back after an idle period; 1 = evenly spaced. */
  VIDEO_ADS_APP_BURST: z.coerce.number().int().min(1).default(1),
};

type Env = z.infer<z.ZodObject<typeof env>>;

export const VIDEO_ADS_PLUGIN: ProviderPlugin<Env> = {
  provider: 'video-ads',
  env,
  create: (config, shared) =>
    new VideoAdsAdapter({
      baseUrl: config.VIDEO_ADS_BASE_URL,
      appId: config.VIDEO_ADS_APP_ID,
      appSecret: config.VIDEO_ADS_APP_SECRET,
      guard: appGuard(config.VIDEO_ADS_APP_QPS, config.VIDEO_ADS_APP_BURST, shared),
    }),
};
