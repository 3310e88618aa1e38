import { videoShopSign } from '@gateway/platform-grants';
import { decodedPairs } from './video-shop.signature';

describe('video-shop signature', () => {
  it('matches the platform test vector of the shop list', () => {
    expect(
      videoShopSign('e59af819cc', '/authorization/202309/shops', [
        ['app_key', '29a39d'],
        ['timestamp', '1623812664'],
      ]),
    ).toBe('b596b73e0cc6de07ac26f036364178ab16b0a907af13d43f0a0cd2345f582dc8');
  });

  it('matches the platform test vector of a bare path', () => {
    expect(videoShopSign('app_secret', '/test-api', [['foo', 'bar']])).toBe(
      'd3cb7fe11ecae942802ceeca67e7cf10120cc12f1517d45fbc1c8cfe5413c80f',
    );
  });

  it('sorts parameters, leaves out sign and access_token, and covers the body bytes', () => {
    const base = videoShopSign('s', '/p', [
      ['b', '2'],
      ['a', '1'],
    ]);
    expect(
      videoShopSign('s', '/p', [
        ['a', '1'],
        ['sign', 'x'],
        ['access_token', 'y'],
        ['b', '2'],
      ]),
    ).toBe(base);
    expect(
      videoShopSign(
        's',
        '/p',
        [
          ['a', '1'],
          ['b', '2'],
        ],
        Buffer.from('{}'),
      ),
    ).not.toBe(base);
  });

  it('signs decoded values, as the platform reads them', () => {
    expect(decodedPairs('page_token=a%2Bb%2F%3D&x=1+2')).toEqual([
      ['page_token', 'a+b/='],
      ['x', '1 2'],
    ]);
  });
});
