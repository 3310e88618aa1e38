import { marketplaceModule } from './marketplace/marketplace.module';
import { searchAdsModule } from './search-ads/search-ads.module';
import { videoAdsModule } from './video-ads/video-ads.module';
import { videoShopModule } from './video-shop/video-shop.module';

/**
 * Every simulated platform, one line each: a module owns its folder, its path prefixes, its environment section,
 * its /_sandbox routes and its fault hooks (platform-modules.ts). The order is that of the fault API's `module`
 * values in its error messages.
 */
export const PLATFORM_MODULES = [videoAdsModule, videoShopModule, marketplaceModule, searchAdsModule] as const;

/** The platform at the sandbox's root: it answers paths no module claims, in its envelope (and faults there). */
export const FALLBACK_MODULE: PlatformModuleName = videoAdsModule.name;

export type PlatformModuleName = (typeof PLATFORM_MODULES)[number]['name'];
