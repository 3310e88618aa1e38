import { computeSign, stringToSign, verifySign } from './signature';

describe('video-shop request signature', () => {
  it('matches the documented vector for the authorized shops path', () => {
    const sign = computeSign({
      appSecret: 'e59af819cc',
      path: '/authorization/202309/shops',
      params: [
        ['app_key', '29a39d'],
        ['timestamp', '1623812664'],
      ],
    });
    expect(sign).toBe('b596b73e0cc6de07ac26f036364178ab16b0a907af13d43f0a0cd2345f582dc8');
  });

  it('matches the documented vector for a single parameter', () => {
    const sign = computeSign({ appSecret: 'app_secret', path: '/test-api', params: [['foo', 'bar']] });
    expect(sign).toBe('d3cb7fe11ecae942802ceeca67e7cf10120cc12f1517d45fbc1c8cfe5413c80f');
  });

  it('sorts the parameters by key and leaves out sign and access_token', () => {
    const text = stringToSign({
      appSecret: 'S',
      path: '/p',
      params: [
        ['timestamp', '2'],
        ['sign', 'x'],
        ['access_token', 'y'],
        ['app_key', 'k'],
        ['page_size', '10'],
      ],
    });
    expect(text).toBe('S/papp_keykpage_size10timestamp2S');
  });

  it('signs decoded values, so a page token with plus, slash and equals signs is signed as the client holds it', () => {
    const token = 'AQAAAGQ+/x==';
    const decoded = [...new URLSearchParams(`page_token=${encodeURIComponent(token)}`)];
    const text = stringToSign({ appSecret: 'S', path: '/p', params: decoded });
    expect(text).toBe(`S/ppage_token${token}S`);
  });

  it('appends a JSON body but not a multipart one', () => {
    const base = { appSecret: 'S', path: '/p', params: [['a', '1']] as [string, string][], body: '{"x":1}' };
    expect(stringToSign({ ...base, contentType: 'application/json' })).toBe('S/pa1{"x":1}S');
    expect(stringToSign({ ...base, contentType: 'multipart/form-data; boundary=b' })).toBe('S/pa1S');
    expect(stringToSign({ ...base, body: '' })).toBe('S/pa1S');
  });

  it('verifies a correct signature', () => {
    const input = { appSecret: 'app_secret', path: '/test-api', params: [['foo', 'bar']] as [string, string][] };
    expect(verifySign(input, 'd3cb7fe11ecae942802ceeca67e7cf10120cc12f1517d45fbc1c8cfe5413c80f')).toBe(true);
  });
});
