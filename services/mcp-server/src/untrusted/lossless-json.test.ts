import { parseLossless } from './lossless-json';

describe('lossless JSON', () => {
  it('keeps every digit of numbers a double would change', () => {
    const raw = '{"id":7497369832011204610,"small":1,"list":[12345678901234567890,"9007199254740993"]}';
    const parsed = parseLossless(raw, 'n')!;
    expect(parsed.restoreText(JSON.stringify(parsed.value))).toBe(raw);
  });

  it.each([
    '78901234567890123450.',
    '[1e400,-06172839450617283945.5]',
    '{"id":-06172839450617283945}',
    '{"a":12345678901234567890e}',
    '{12345678901234567890:1}',
  ])('refuses %j, which is not JSON (found by the fuzzer)', (raw) => {
    expect(parseLossless(raw)).toBeUndefined();
  });
});
