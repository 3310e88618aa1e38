export { GrantExchangeError, redacted } from './platform-grant';
export type { GrantCallbackQuery, GrantedAccount, GrantedCredentials, PlatformGrant } from './platform-grant';
export { GrantConfigError, GrantEnvReader, grantsFromEnv } from './grant-plugin';
export type {
  AuthorizationPageGrantPlugin,
  GrantConnect,
  GrantEnv,
  GrantPluginDefinition,
  KeyPairGrantPlugin,
} from './grant-plugin';
export { GRANT_PLUGINS } from './grant-plugins';
export {
  videoAdsAuthorizationUrl,
  exchangeVideoAdsAuthCode,
  videoAdsGrant,
  videoAdsGrantPlugin,
} from './video-ads.grant';
export type { VideoAdsApp, VideoAdsGrant } from './video-ads.grant';
export { videoShopGrant, videoShopGrantPlugin, VIDEO_SHOP_SHOPS_PATH } from './video-shop.grant';
export type { VideoShopApp, VideoShopGrantOptions } from './video-shop.grant';
export { videoShopSign } from './video-shop.signature';
export {
  marketplaceGrant,
  marketplaceGrantPlugin,
  MARKETPLACE_AUTH_PARTNER_PATH,
  MARKETPLACE_TOKEN_PATH,
} from './marketplace.grant';
export type { MarketplaceApp, MarketplaceGrantOptions, MarketplaceProvider } from './marketplace.grant';
export { marketplaceSign } from './marketplace.signature';
export {
  generateSearchAdsKeyPair,
  searchAdsClientAssertion,
  searchAdsGrant,
  searchAdsGrantPlugin,
  SearchAdsGrantError,
  SEARCH_ADS_ACLS_PATH,
  SEARCH_ADS_ASSERTION_AUDIENCE,
  SEARCH_ADS_TOKEN_PATH,
} from './search-ads.grant';
export type {
  SearchAdsApiUser,
  SearchAdsGrant,
  SearchAdsGrantOptions,
  SearchAdsKeyPair,
  SearchAdsOrg,
  SearchAdsRefusal,
  SearchAdsToken,
} from './search-ads.grant';
