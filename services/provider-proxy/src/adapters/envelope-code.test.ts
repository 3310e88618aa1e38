import { envelopeCode } from './envelope-code';

/** What the envelope code was before the scanner: the whole body through JSON.parse. */
function parsedCode(body: Buffer, field: string): number | string | undefined {
  try {
    const value = (JSON.parse(body.toString('utf8')) as Record<string, unknown>)[field];
    return typeof value === 'number' || typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

const code = (text: string, field = 'code') => envelopeCode(Buffer.from(text, 'utf8'), field);

describe('envelopeCode', () => {
  it.each([
    ['{"code":0,"message":"OK","data":{"list":[]}}', 0],
    ['{"code":40105,"message":"Access token is incorrect or has been revoked."}', 40105],
    ['  {\n\t"message" : "x", "data" : {"code": 1, "list": [{"code": 2}, "}", "\\"]"]}, "code" : -12.5e1 }', -125],
    ['{"request_id":"a\\"b\\\\","code":"40001"}', '40001'],
    ['{"c\\u006fde":7}', 7],
    ['{"data":[1,[2,[3,{"x":"]"}]]],"ok":true,"none":null,"code":3}', 3],
    ['{"code":"\\u00e9t\\u00e9"}', 'été'],
    ['{"message":"日本語","code":5}', 5],
  ])('reads %s', (text, expected) => {
    expect(code(text)).toEqual(expected);
    expect(code(text)).toEqual(parsedCode(Buffer.from(text), 'code'));
  });

  it('reads the marketplace envelope by its own field', () => {
    expect(code('{"error":"error_auth","message":"Invalid access_token.","request_id":"r"}', 'error')).toBe(
      'error_auth',
    );
    expect(code('{"error":"","response":{}}', 'error')).toBe('');
  });

  it.each([
    ['', 'empty'],
    ['not json', 'not JSON'],
    ['[{"code":1}]', 'an array'],
    ['"code"', 'a string'],
    ['{}', 'an empty object'],
    ['{"message":"x"}', 'no such member'],
    ['{"code":true}', 'a boolean'],
    ['{"code":null}', 'null'],
    ['{"code":{"value":1}}', 'an object'],
    ['{"code":[1]}', 'an array value'],
    ['{"code":01}', 'a number JSON does not allow'],
    ['{"code":-}', 'a lone minus'],
    ['{"code" 1}', 'no colon'],
    ['{"message":"x" "code":1}', 'no comma'],
    ['{"message":"unterminated, "code":1', 'an unterminated string'],
    ['{"message":"a\nb","code":1}', 'a raw line feed in a string'],
    ['{"data":{"x":[1,2}, "code":1', 'an unterminated nested value'],
    ['\ufeff{"code":1}', 'a byte order mark'],
    ['{code:1}', 'an unquoted name'],
  ])('gives undefined for %s (%s)', (text) => {
    expect(code(text)).toBeUndefined();
  });

  it('takes the first of duplicate members and does not read past the one it found', () => {
    expect(code('{"code":1,"code":2}')).toBe(1);
    expect(code('{"code":40105,"data":')).toBe(40105);
  });

  it('agrees with JSON.parse on generated envelopes', () => {
    let seed = 20261127;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const strings = ['', 'code', 'a"b', 'back\\slash', '}]{[', 'é', '😀', 'tab\there', 'x'.repeat(40), '\u0000'];
    const value = (depth: number): unknown => {
      const kind = Math.floor(random() * (depth > 3 ? 5 : 7));
      switch (kind) {
        case 0:
          return Math.floor(random() * 1e6) - 5e5;
        case 1:
          return random() * 1e3;
        case 2:
          return pick(strings);
        case 3:
          return pick([true, false, null]);
        case 4:
          return -0;
        case 5:
          return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
        default: {
          const object: Record<string, unknown> = {};
          for (let i = Math.floor(random() * 4); i > 0; i--) object[pick(strings)] = value(depth + 1);
          return object;
        }
      }
    };
    for (let i = 0; i < 3_000; i++) {
      const envelope: Record<string, unknown> = {};
      for (let members = Math.floor(random() * 6); members > 0; members--) envelope[pick(strings)] = value(0);
      const text = JSON.stringify(envelope, null, random() < 0.3 ? 2 : undefined);
      const body = Buffer.from(text, 'utf8');
      for (const field of ['code', 'error', 'é'])
        expect([text, field, envelopeCode(body, field)]).toEqual([text, field, parsedCode(body, field)]);
    }
  });
});
