import { marketplaceGrant, videoAdsGrant, videoShopGrant, type PlatformGrant } from '@gateway/platform-grants';
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
> &
  Partial<
    Pick<
      Config,
      | 'MARKETPLACE_BASE_URL'
      | 'MARKETPLACE_PARTNER_ID'
      | 'MARKETPLACE_PARTNER_KEY'
      | 'MARKETPLACE_ADS_PARTNER_ID'
      | 'MARKETPLACE_ADS_PARTNER_KEY'
      | 'MARKETPLACE_AFFILIATE_PARTNER_ID'
      | 'MARKETPLACE_AFFILIATE_PARTNER_KEY'
    >
  >;

const DEFAULT_MARKETPLACE_BASE_URL = 'https://partner.shopeemobile.com';

/**
 * The providers the portal can connect, each with its grant flow (docs/portal.md, "Grant flows"). video-ads is
 * always configured; video-shop only when its app key and secret are set, and each marketplace app only when its
 * partner id and key are set, as in provider-proxy. The three marketplace apps are separate grants (spec 1).
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
  const baseUrl = config.MARKETPLACE_BASE_URL ?? DEFAULT_MARKETPLACE_BASE_URL;
  const apps = [
    ['marketplace', config.MARKETPLACE_PARTNER_ID, config.MARKETPLACE_PARTNER_KEY],
    ['marketplace-ads', config.MARKETPLACE_ADS_PARTNER_ID, config.MARKETPLACE_ADS_PARTNER_KEY],
    ['marketplace-affiliate', config.MARKETPLACE_AFFILIATE_PARTNER_ID, config.MARKETPLACE_AFFILIATE_PARTNER_KEY],
  ] as const;
  for (const [provider, partnerId, partnerKey] of apps) {
    if (partnerId !== undefined && partnerKey !== undefined) {
      grants.push(marketplaceGrant(provider, { baseUrl, partnerId, partnerKey }));
    }
  }
  return grants;
}
