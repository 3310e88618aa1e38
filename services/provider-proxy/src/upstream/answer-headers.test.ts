import { AnswerHeaders } from './answer-headers';

const raw = (...pairs: string[]): Buffer[] => pairs.map((text) => Buffer.from(text, 'utf8'));

describe('AnswerHeaders', () => {
  it('finds a header by its lower-case name whatever case the platform wrote it in', () => {
    const headers = new AnswerHeaders(raw('Content-Type', 'application/json', 'RETRY-AFTER', '7', 'x-tt-logid', 'abc'));
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('retry-after')).toBe('7');
    expect(headers.get('x-tt-logid')).toBe('abc');
  });

  it('answers the first value of a repeated header and an empty string for an absent one', () => {
    const headers = new AnswerHeaders(raw('x-repeated', 'one', 'X-Repeated', 'two'));
    expect(headers.get('x-repeated')).toBe('one');
    expect(headers.get('x-repeate')).toBe('');
    expect(headers.get('x-repeated2')).toBe('');
    expect(AnswerHeaders.NONE.get('content-type')).toBe('');
  });

  it('folds only the letters: a name that differs in a symbol by 0x20 is another name', () => {
    // '^' (0x5e) and '~' (0x7e), '@' (0x40) and '`' (0x60) are distinct token characters.
    const headers = new AnswerHeaders(raw('x-a^b', 'caret', 'x-@', 'at'));
    expect(headers.get('x-a~b')).toBe('');
    expect(headers.get('x-`')).toBe('');
    expect(headers.get('x-a^b')).toBe('caret');
  });

  it('decodes a value as UTF-8 and ignores a name left without its value', () => {
    const headers = new AnswerHeaders(raw('x-name', 'Zoë 東京', 'x-dangling'));
    expect(headers.get('x-name')).toBe('Zoë 東京');
    expect(headers.get('x-dangling')).toBe('');
  });
});
