import type { z } from 'zod';
import type { ProviderPlugin } from './provider-plugin';
import {
  MARKETPLACE_ADS_PLUGIN,
  MARKETPLACE_AFFILIATE_PLUGIN,
  MARKETPLACE_PLUGIN,
} from './marketplace/marketplace.plugins';
import { SEARCH_ADS_PLUGIN } from './search-ads/search-ads.plugin';
import { VIDEO_ADS_PLUGIN } from './video-ads/video-ads.plugin';
import { VIDEO_SHOP_PLUGIN } from './video-shop/video-shop.plugin';

/** The providers provider-proxy serves: one line each. */
export const PROVIDER_PLUGINS: readonly ProviderPlugin<never>[] = [
  VIDEO_ADS_PLUGIN,
  VIDEO_SHOP_PLUGIN,
  MARKETPLACE_PLUGIN,
  MARKETPLACE_ADS_PLUGIN,
  MARKETPLACE_AFFILIATE_PLUGIN,
  SEARCH_ADS_PLUGIN,
];

/** Every provider's environment variables, merged into the service's config schema. */
export const PROVIDER_ENV: z.ZodRawShape = Object.assign({}, ...PROVIDER_PLUGINS.map((plugin) => plugin.env));
