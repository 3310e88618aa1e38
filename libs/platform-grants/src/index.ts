export { GrantExchangeError, redacted } from './platform-grant';
export type { GrantCallbackQuery, GrantedAccount, GrantedCredentials, PlatformGrant } from './platform-grant';
export { videoAdsAuthorizationUrl, exchangeVideoAdsAuthCode, videoAdsGrant } from './video-ads.grant';
export type { VideoAdsApp, VideoAdsGrant } from './video-ads.grant';
export { videoShopGrant, VIDEO_SHOP_SHOPS_PATH } from './video-shop.grant';
export type { VideoShopApp, VideoShopGrantOptions } from './video-shop.grant';
export { videoShopSign } from './video-shop.signature';
