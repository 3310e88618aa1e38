import { computeSign, verifySign } from './signature';

const KEY = '57615053704d6470644f554a78656d50484143644964436a5568777544524579';
const BASE = '2001887/api/v2/public/get_shops_by_partner1655714431';
const GOOD = '60ab8c4a535009ab33b8a0029ee18a667ef6eaeb16481ed3d573a5059122d4df';

describe('marketplace signature verification', () => {
  it('refuses a signature made with another key', () => {
    expect(verifySign(KEY, BASE, computeSign(`${KEY.slice(0, -1)}0`, BASE))).toBe(false);
  });

  it('refuses a signature of another path or timestamp', () => {
    expect(verifySign(KEY, BASE.replace('1655714431', '1655714432'), GOOD)).toBe(false);
    expect(verifySign(KEY, BASE.replace('get_shops_by_partner', 'get_shop_info'), GOOD)).toBe(false);
  });

  it('refuses uppercase, truncated and non-hex signatures without throwing', () => {
    expect(verifySign(KEY, BASE, GOOD.toUpperCase())).toBe(false);
    expect(verifySign(KEY, BASE, GOOD.slice(0, 63))).toBe(false);
    expect(verifySign(KEY, BASE, `${GOOD.slice(0, 63)}z`)).toBe(false);
    expect(verifySign(KEY, BASE, '')).toBe(false);
  });
});
