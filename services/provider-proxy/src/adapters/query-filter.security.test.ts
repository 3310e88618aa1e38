import { appendParams, filterQuery, normaliseName, normaliseSpelling, ownedBodyField } from './query-filter';

const VIDEO_ADS_OWNED: ReadonlySet<string> = new Set(['app_id', 'secret', 'access_token']);

function kept(raw: string): string {
  const result = filterQuery(raw, VIDEO_ADS_OWNED);
  if (!result.ok) throw new Error(result.problem);
  return result.query;
}

describe('query filter', () => {
  it('keeps every other parameter byte for byte, JSON-string arrays included', () => {
    const raw =
      'advertiser_id=7012345678901234567&dimensions=%5B%22ad_id%22%2C%22stat_time_day%22%5D' +
      '&metrics=["spend","impressions"]&filtering={"campaign_ids":["1"]}&page=2&page_size=1000&x=a+b%20c';
    expect(kept(raw)).toBe(raw);
  });

  it('keeps lower/upper-case percent escapes and empty values exactly as written', () => {
    expect(kept('a=%2c%2C&b=&c')).toBe('a=%2c%2C&b=&c');
  });

  it.each([
    'access_token=t',
    'ACCESS_TOKEN=t',
    'Access_Token=t',
    'access%5Ftoken=t',
    'access%5ftoken=t',
    'access%255Ftoken=t',
    '%61%63%63%65%73%73%5f%74%6f%6b%65%6e=t',
    'access_token',
    'access_token=',
    'access_token[]=t',
    'access_token[0]=t',
    'access_token%20=t',
    '%20access_token=t',
    'access_token%00.ignored=t',
    'access_token%09=t',
    '\uff41ccess_token=t'.replace('\uff41', '%EF%BD%81'),
    'app_id=1',
    'APP_ID=1',
    'app%5Fid=1',
    'secret=s',
    'SECRET=s',
    'Secr%65t=s',
    'secret=a=b',
    'x=1;access_token=t',
    'access_token=t;x=1',
  ])('drops the service-owned parameter in %j', (segment) => {
    expect(kept(`a=1&${segment}&b=2`)).toBe('a=1&b=2');
  });

  it('drops every occurrence, wherever it stands', () => {
    expect(kept('access_token=1&access_token=2&a=1&ACCESS_TOKEN=3&secret=4&app_id=5')).toBe('a=1');
  });

  it('keeps names that only look alike', () => {
    const raw = 'access_tokens=1&my_secret=2&app_ids=3&secret_id=4&access-token=5&accesstoken=6&x=access_token';
    expect(kept(raw)).toBe(raw);
  });

  it('drops empty segments and a leading question mark', () => {
    expect(kept('?a=1&&b=2&')).toBe('a=1&b=2');
  });

  it('refuses bytes that a request target cannot carry unencoded', () => {
    for (const raw of ['a=b c', 'a=1#frag', 'a=\u00e9', 'a=\n', 'a=\u0000']) {
      expect(filterQuery(raw, VIDEO_ADS_OWNED).ok).toBe(false);
    }
  });

  it('does not throw on broken escapes', () => {
    expect(kept('a=%&b%zz=1&%E0%A4%A=2')).toBe('a=%&b%zz=1&%E0%A4%A=2');
    expect(normaliseName('%E0%A4%A')).toBe('%e0%a4%a');
  });

  it('reads a plain lower-case name as every step would, without taking them', () => {
    const alphabet = [
      'a',
      'z',
      '0',
      '9',
      '_',
      '.',
      '-',
      'A',
      '%',
      '5F',
      '+',
      '[',
      ']',
      ' ',
      '\u0000',
      '\u0001',
      'ａ',
      'é',
      '~',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    let plain = 0;
    for (let i = 0; i < 5_000; i++) {
      const length = Math.floor(next() * 12);
      const pool = next() < 0.5 ? alphabet.slice(0, 7) : alphabet;
      let name = '';
      for (let j = 0; j < length; j++) name += pool[Math.floor(next() * pool.length)];
      if (/^[a-z0-9_.-]*$/.test(name)) plain += 1;
      expect(normaliseName(name)).toBe(normaliseSpelling(name));
    }
    expect(plain).toBeGreaterThan(2_000);
  });

  it('appends the service parameters percent-encoded', () => {
    expect(
      appendParams('a=1', [
        ['app_id', '7'],
        ['secret', 's&x=y'],
      ]),
    ).toBe('a=1&app_id=7&secret=s%26x%3Dy');
    expect(appendParams('', [['app_id', '7']])).toBe('app_id=7');
    expect(appendParams('a=1', [])).toBe('a=1');
  });
});

describe('owned body fields', () => {
  it('finds an owned field in any spelling and ignores the others', () => {
    expect(ownedBodyField({ page: 1, ACCESS_TOKEN: 'x' }, VIDEO_ADS_OWNED)).toBe('ACCESS_TOKEN');
    expect(ownedBodyField({ 'app%5Fid': 1 }, VIDEO_ADS_OWNED)).toBe('app%5Fid');
    expect(ownedBodyField({ page: 1, access_tokens: 'x' }, VIDEO_ADS_OWNED)).toBeUndefined();
  });
});
