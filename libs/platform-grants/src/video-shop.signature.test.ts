import { videoShopSign } from './video-shop.signature';

describe('videoShopSign', () => {
  it('matches the platform test vector for the authorized shops path', () => {
    expect(
      videoShopSign('e59af819cc', '/authorization/202309/shops', [
        ['timestamp', '1623812664'],
        ['app_key', '29a39d'],
      ]),
    ).toBe('b596b73e0cc6de07ac26f036364178ab16b0a907af13d43f0a0cd2345f582dc8');
  });

  it('leaves sign and access_token out of the signed text', () => {
    const plain = videoShopSign('s', '/p', [['a', '1']]);
    expect(
      videoShopSign('s', '/p', [
        ['a', '1'],
        ['sign', 'x'],
        ['access_token', 'y'],
      ]),
    ).toBe(plain);
  });
});
