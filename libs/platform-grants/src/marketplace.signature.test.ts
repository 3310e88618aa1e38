import { marketplaceSign } from './marketplace.signature';

const KEY = '57615053704d6470644f554a78656d50484143644964436a5568777544524579';

describe('marketplaceSign', () => {
  it('matches the platform test vector of a public call', () => {
    expect(marketplaceSign(KEY, '2001887', '/api/v2/public/get_shops_by_partner', 1655714431)).toBe(
      '60ab8c4a535009ab33b8a0029ee18a667ef6eaeb16481ed3d573a5059122d4df',
    );
  });

  it('appends access_token and shop_id for a shop call', () => {
    const shop = marketplaceSign(KEY, '1', '/api/v2/shop/get_shop_info', 2, { accessToken: 'tok', shopId: '9' });
    expect(shop).not.toBe(marketplaceSign(KEY, '1', '/api/v2/shop/get_shop_info', 2));
    expect(shop).toMatch(/^[0-9a-f]{64}$/);
  });
});
