import { GrantConfigError, grantsFromEnv } from './grant-plugin';
import { GRANT_PLUGINS } from './grant-plugins';
import { videoAdsGrantPlugin } from './video-ads.grant';
import { videoShopGrantPlugin } from './video-shop.grant';

const ENV = {
  VIDEO_ADS_BASE_URL: 'http://127.0.0.1:9000',
  VIDEO_ADS_APP_ID: '7000',
  VIDEO_ADS_APP_SECRET: 'ads-secret',
};

describe('GRANT_PLUGINS', () => {
  it('lists one plug-in per provider, each saying how the portal connects it', () => {
    expect(GRANT_PLUGINS.map((plugin) => [plugin.provider, plugin.connect])).toEqual([
      ['video-ads', 'authorization_page'],
      ['video-shop', 'authorization_page'],
      ['marketplace', 'authorization_page'],
      ['marketplace-ads', 'authorization_page'],
      ['marketplace-affiliate', 'authorization_page'],
      ['search-ads', 'key_pair'],
    ]);
  });

  it('builds the plug-ins whose variables are set; the others are left out', () => {
    const grants = grantsFromEnv(GRANT_PLUGINS, {
      ...ENV,
      VIDEO_SHOP_APP_SECRET: 'no key',
      MARKETPLACE_AFFILIATE_PARTNER_ID: '2101003',
      MARKETPLACE_AFFILIATE_PARTNER_KEY: 'affiliate-key',
    });
    expect(grants.map((grant) => grant.provider)).toEqual(['video-ads', 'marketplace-affiliate', 'search-ads']);
  });

  it('takes the platform hosts by default and trims a configured one, as the zod schemas do', () => {
    const [ads, shop] = grantsFromEnv([videoAdsGrantPlugin, videoShopGrantPlugin], {
      ...ENV,
      VIDEO_ADS_BASE_URL: ' http://127.0.0.1:9000 ',
      VIDEO_SHOP_APP_KEY: '6key',
      VIDEO_SHOP_APP_SECRET: 'shop-secret',
    });
    expect(new URL(ads!.authorizationUrl('st', 'http://portal.test/cb')).origin).toBe('http://127.0.0.1:9000');
    expect(new URL(shop!.authorizationUrl('st', 'http://portal.test/cb')).origin).toBe('https://auth.tiktok-shops.com');
  });

  it('requires the video-ads app and reports every problem at once without a value', () => {
    let error: unknown;
    try {
      grantsFromEnv(GRANT_PLUGINS, { VIDEO_ADS_APP_ID: '', SEARCH_ADS_API_URL: 'https:/one-slash' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GrantConfigError);
    expect((error as GrantConfigError).problems).toEqual([
      'VIDEO_ADS_BASE_URL: is required',
      'VIDEO_ADS_APP_ID: must not be empty',
      'VIDEO_ADS_APP_SECRET: is required',
      'SEARCH_ADS_API_URL: must be an http(s) URL',
    ]);
    expect((error as Error).message).not.toContain('one-slash');
  });
});
