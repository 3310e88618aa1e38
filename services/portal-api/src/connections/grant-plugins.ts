import { videoAdsGrant, videoShopGrant, type PlatformGrant } from '@gateway/platform-grants';
import type { Config } from '../config';

type GrantConfig = Pick<
  Config,
  | 'VIDEO_ADS_BASE_URL'
  | 'VIDEO_ADS_APP_ID'
  | 'VIDEO_ADS_APP_SECRET'
  | 'VIDEO_SHOP_API_URL'
  | 'VIDEO_SHOP_AUTH_URL'
  | 'VIDEO_SHOP_APP_KEY'
  | 'VIDEO_SHOP_APP_SECRET'
>;

/**
 * The providers the portal can connect, each with its grant flow (docs/portal.md, "Grant flows"). video-ads is
 * always configured; video-shop only when its app key and secret are set, as in provider-proxy.
 */
export function grantPlugins(config: GrantConfig): PlatformGrant[] {
  const grants: PlatformGrant[] = [
    videoAdsGrant({
      baseUrl: config.VIDEO_ADS_BASE_URL,
      appId: config.VIDEO_ADS_APP_ID,
      secret: config.VIDEO_ADS_APP_SECRET,
    }),
  ];
  if (config.VIDEO_SHOP_APP_KEY !== undefined && config.VIDEO_SHOP_APP_SECRET !== undefined) {
    grants.push(
      videoShopGrant({
        apiBaseUrl: config.VIDEO_SHOP_API_URL,
        authBaseUrl: config.VIDEO_SHOP_AUTH_URL,
        appKey: config.VIDEO_SHOP_APP_KEY,
        appSecret: config.VIDEO_SHOP_APP_SECRET,
      }),
    );
  }
  return grants;
}
