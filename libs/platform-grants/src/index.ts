export { videoAdsAuthorizationUrl, exchangeVideoAdsAuthCode, GrantExchangeError } from './video-ads.grant';
export type { VideoAdsApp, VideoAdsGrant } from './video-ads.grant';
