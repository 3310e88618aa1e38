import { GrantConfigError } from '@gateway/platform-grants';
import { grantPlugins } from './grant-plugins';

const BASE = {
  VIDEO_ADS_BASE_URL: 'http://127.0.0.1:9000',
  VIDEO_ADS_APP_ID: '7000',
  VIDEO_ADS_APP_SECRET: 'ads-secret',
  VIDEO_SHOP_API_URL: 'http://127.0.0.1:9000/video-shop',
  VIDEO_SHOP_AUTH_URL: 'http://127.0.0.1:9000/video-shop-auth',
};

describe('grantPlugins', () => {
  it('reads the process environment names: the plug-ins of the one list whose app is set, search-ads aside', () => {
    expect(
      grantPlugins({ ...BASE, SEARCH_ADS_API_URL: 'http://127.0.0.1:9000/search-ads' }).map((g) => g.provider),
    ).toEqual(['video-ads']);
  });

  it('offers video-ads only while the video-shop app is not configured', () => {
    expect(grantPlugins(BASE).map((grant) => grant.provider)).toEqual(['video-ads']);
    expect(grantPlugins({ ...BASE, VIDEO_SHOP_APP_KEY: '6key' }).map((grant) => grant.provider)).toEqual(['video-ads']);
  });

  it('adds video-shop when its app key and secret are set, authorizing at the auth base', () => {
    const grants = grantPlugins({ ...BASE, VIDEO_SHOP_APP_KEY: '6key', VIDEO_SHOP_APP_SECRET: 'shop-secret' });
    expect(grants.map((grant) => grant.provider)).toEqual(['video-ads', 'video-shop']);
    const url = new URL(grants[1]!.authorizationUrl('st', 'http://portal.test/api/connections/callback'));
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:9000/video-shop-auth/oauth/authorize');
    expect(url.searchParams.get('app_key')).toBe('6key');
    expect(url.toString()).not.toContain('shop-secret');
    expect(grants[0]!.authorizationUrl('st', 'http://portal.test/cb')).not.toContain('ads-secret');
  });
});

describe('grantPlugins - marketplace', () => {
  const MARKET = {
    MARKETPLACE_BASE_URL: 'http://127.0.0.1:9000/marketplace',
    MARKETPLACE_PARTNER_ID: '2101001',
    MARKETPLACE_PARTNER_KEY: 'seller-key',
    MARKETPLACE_ADS_PARTNER_ID: '2101002',
    MARKETPLACE_ADS_PARTNER_KEY: 'ads-key',
    MARKETPLACE_AFFILIATE_PARTNER_ID: '2101003',
    MARKETPLACE_AFFILIATE_PARTNER_KEY: 'affiliate-key',
  };

  it('offers the three apps as three providers, each with its own partner id on the authorization page', () => {
    const grants = grantPlugins({ ...BASE, ...MARKET });
    expect(grants.map((grant) => grant.provider)).toEqual([
      'video-ads',
      'marketplace',
      'marketplace-ads',
      'marketplace-affiliate',
    ]);
    const partnerIds = grants.slice(1).map((grant) => {
      const url = new URL(grant.authorizationUrl('st', 'http://portal.test/api/connections/callback'));
      expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:9000/marketplace/api/v2/shop/auth_partner');
      expect(url.toString()).not.toMatch(/seller-key|ads-key|affiliate-key/);
      return url.searchParams.get('partner_id');
    });
    expect(partnerIds).toEqual(['2101001', '2101002', '2101003']);
  });

  it('offers an app only when both its partner id and key are set', () => {
    const grants = grantPlugins({
      ...BASE,
      ...MARKET,
      MARKETPLACE_PARTNER_KEY: undefined,
      MARKETPLACE_AFFILIATE_PARTNER_ID: undefined,
    });
    expect(grants.map((grant) => grant.provider)).toEqual(['video-ads', 'marketplace-ads']);
  });
});

describe('grantPlugins - configuration', () => {
  it('refuses a bad value of any plug-in, naming every bad variable and never a value', () => {
    const read = () =>
      grantPlugins({
        ...BASE,
        VIDEO_ADS_APP_SECRET: undefined,
        VIDEO_SHOP_AUTH_URL: 'ftp://shop-secret.example',
        VIDEO_SHOP_APP_KEY: '6key',
        VIDEO_SHOP_APP_SECRET: 'shop-secret',
        MARKETPLACE_BASE_URL: 'not a url',
        MARKETPLACE_ADS_PARTNER_ID: 'ads-id',
        MARKETPLACE_ADS_PARTNER_KEY: 'ads-key',
      });
    expect(read).toThrow(GrantConfigError);
    let problems: readonly string[] = [];
    try {
      read();
    } catch (error) {
      problems = (error as GrantConfigError).problems;
      expect((error as Error).message).not.toMatch(/shop-secret|ads-key|ads-id|not a url/);
    }
    // MARKETPLACE_BASE_URL is shared by the three apps and reported once.
    expect(problems).toEqual([
      'VIDEO_ADS_APP_SECRET: is required',
      'VIDEO_SHOP_AUTH_URL: must be an http(s) URL',
      'MARKETPLACE_BASE_URL: must be an http(s) URL',
      'MARKETPLACE_ADS_PARTNER_ID: must be digits',
    ]);
  });

  it('checks the defaulted hosts even while the app is not set, as the portal config always did', () => {
    expect(() => grantPlugins({ ...BASE, VIDEO_SHOP_API_URL: '' })).toThrow(
      'VIDEO_SHOP_API_URL: must be an http(s) URL',
    );
    expect(() => grantPlugins({ ...BASE, MARKETPLACE_BASE_URL: 'http:host' })).toThrow('MARKETPLACE_BASE_URL');
    expect(() => grantPlugins({ ...BASE, VIDEO_SHOP_APP_KEY: '' })).toThrow('VIDEO_SHOP_APP_KEY: must not be empty');
  });
});
