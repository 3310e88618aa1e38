import type { ProviderId } from '@gateway/catalogue';
import {
  MARKETPLACE_ADS_PLUGIN,
  MARKETPLACE_AFFILIATE_PLUGIN,
  MARKETPLACE_PLUGIN,
} from './providers/marketplace/marketplace.plugin';
import { SEARCH_ADS_PLUGIN } from './providers/search-ads/search-ads.plugin';
import { VIDEO_ADS_PLUGIN } from './providers/video-ads/video-ads.plugin';
import { VIDEO_SHOP_PLUGIN } from './providers/video-shop/video-shop.plugin';
import type { SuggestionPlugin } from './suggestion.plugin';

/**
 * The providers keyword matching knows: one line per provider. When the wording names several providers, the one
 * listed first wins: search-ads words are its own, while the marketplace ones are shared with other platforms.
 */
const REGISTERED: readonly SuggestionPlugin[] = [
  VIDEO_ADS_PLUGIN,
  VIDEO_SHOP_PLUGIN,
  SEARCH_ADS_PLUGIN,
  MARKETPLACE_PLUGIN,
  MARKETPLACE_ADS_PLUGIN,
  MARKETPLACE_AFFILIATE_PLUGIN,
];

const BY_PROVIDER: ReadonlyMap<ProviderId, SuggestionPlugin> = new Map(
  REGISTERED.map((plugin) => [plugin.provider, plugin]),
);

/** Every registered plugin, in the order that settles which provider the wording names. */
export function suggestionPlugins(): readonly SuggestionPlugin[] {
  return REGISTERED;
}

export function suggestionPluginOf(provider: ProviderId): SuggestionPlugin | undefined {
  return BY_PROVIDER.get(provider);
}
