import type { GrantPluginDefinition } from './grant-plugin';
import { marketplaceGrantPlugin } from './marketplace.grant';
import { searchAdsGrantPlugin } from './search-ads.grant';
import { videoAdsGrantPlugin } from './video-ads.grant';
import { videoShopGrantPlugin } from './video-shop.grant';

/**
 * Every grant plug-in, one line per provider, in the order the portal offers them. Each reads its own variables;
 * the portal runs those whose app is configured (docs/portal.md, "Grant flows").
 */
export const GRANT_PLUGINS: readonly GrantPluginDefinition[] = [
  videoAdsGrantPlugin,
  videoShopGrantPlugin,
  marketplaceGrantPlugin('marketplace'),
  marketplaceGrantPlugin('marketplace-ads'),
  marketplaceGrantPlugin('marketplace-affiliate'),
  searchAdsGrantPlugin,
];
