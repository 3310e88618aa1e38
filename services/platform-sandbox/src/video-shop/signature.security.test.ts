import { createHmac } from 'node:crypto';
import { computeSign, verifySign, type SignInput } from './signature';

describe('video-shop signature verification', () => {
  const input: SignInput = {
    appSecret: 'app_secret',
    path: '/order/202309/orders/search',
    params: [
      ['app_key', 'k'],
      ['timestamp', '1700000000'],
    ],
    body: '{"order_status":"COMPLETED"}',
    contentType: 'application/json',
  };
  const good = computeSign(input);

  it('refuses a signature made with another secret', () => {
    expect(verifySign(input, computeSign({ ...input, appSecret: 'other_secret' }))).toBe(false);
  });

  it('refuses a signature of another path, other parameters or another body', () => {
    expect(verifySign({ ...input, path: '/order/202309/orders' }, good)).toBe(false);
    expect(
      verifySign(
        {
          ...input,
          params: [
            ['app_key', 'k'],
            ['timestamp', '1700000001'],
          ],
        },
        good,
      ),
    ).toBe(false);
    expect(verifySign({ ...input, body: '{"order_status":"CANCELLED"}' }, good)).toBe(false);
  });

  it('refuses truncated, uppercase, empty and non-hex signatures without throwing', () => {
    for (const presented of [good.slice(0, 63), good.toUpperCase(), '', 'z'.repeat(64), `${good}00`]) {
      expect(verifySign(input, presented)).toBe(false);
    }
  });

  it('does not use the bare HMAC of the path without the secret wrapping', () => {
    const unwrapped = createHmac('sha256', 'app_secret')
      .update('/order/202309/orders/searchapp_keyktimestamp1700000000{"order_status":"COMPLETED"}')
      .digest('hex');
    expect(verifySign(input, unwrapped)).toBe(false);
  });
});
