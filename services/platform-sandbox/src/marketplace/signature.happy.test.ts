import { baseString, computeSign, verifySign } from './signature';

const KEY = '57615053704d6470644f554a78656d50484143644964436a5568777544524579';

describe('marketplace request signature', () => {
  it('matches the documented vector of a shop call', () => {
    const base = baseString({
      partnerId: '2001887',
      path: '/api/v2/shop/get_shop_info',
      timestamp: '1655714431',
      accessToken: '59777174636562737266615546704c6d',
      shopId: '14701711',
    });
    expect(base).toBe('2001887/api/v2/shop/get_shop_info165571443159777174636562737266615546704c6d14701711');
    expect(computeSign(KEY, base)).toBe('b914bea03c13799deb036bb9d10e689f5a6bade160c44af568646f1ef7d796c1');
  });

  it('matches the documented vector of a public call', () => {
    const base = baseString({
      partnerId: '2001887',
      path: '/api/v2/public/get_shops_by_partner',
      timestamp: '1655714431',
    });
    expect(base).toBe('2001887/api/v2/public/get_shops_by_partner1655714431');
    expect(computeSign(KEY, base)).toBe('60ab8c4a535009ab33b8a0029ee18a667ef6eaeb16481ed3d573a5059122d4df');
  });

  it('accepts the documented signature when verifying', () => {
    const base = '2001887/api/v2/public/get_shops_by_partner1655714431';
    expect(verifySign(KEY, base, '60ab8c4a535009ab33b8a0029ee18a667ef6eaeb16481ed3d573a5059122d4df')).toBe(true);
  });
});
