import { grantPlugins } from './grant-plugins';

const BASE = {
  VIDEO_ADS_BASE_URL: 'http://127.0.0.1:9000',
  VIDEO_ADS_APP_ID: '7000',
  VIDEO_ADS_APP_SECRET: 'ads-secret',
  VIDEO_SHOP_API_URL: 'http://127.0.0.1:9000/video-shop',
  VIDEO_SHOP_AUTH_URL: 'http://127.0.0.1:9000/video-shop-auth',
};

describe('grantPlugins', () => {
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
