import { closeJsonPrefix } from './json-prefix';

describe('closeJsonPrefix', () => {
  const whole = JSON.stringify({
    code: 0,
    message: 'OK, "quoted", [not a bracket] {nor this}, a \\ backslash',
    data: {
      list: [
        { id: 1, tags: ['a', 'b'] },
        { id: 2, tags: [] },
        { id: 3, name: 'ü, é' },
      ],
      page: { n: 1 },
    },
  });

  it('closes every prefix of a document into valid JSON that keeps only whole records of the list', () => {
    const records = (JSON.parse(whole) as { data: { list: unknown[] } }).data.list;
    for (let length = 1; length <= whole.length; length++) {
      const closed = closeJsonPrefix(whole.slice(0, length));
      if (closed === undefined) continue;
      const value = JSON.parse(closed) as { data?: { list?: unknown[] } };
      // Whatever is kept is kept as it was: the closed text minus its closers is a prefix of the document.
      expect(whole.startsWith(closed.replace(/[\]}]+$/, ''))).toBe(true);
      const list = value.data?.list ?? [];
      expect(list).toEqual(records.slice(0, list.length));
    }
  });

  it('keeps the records read whole and drops the one cut in the middle', () => {
    const cut = whole.slice(0, whole.indexOf('{"id":3') + 5);
    const { code, message, data } = JSON.parse(whole) as { code: 0; message: string; data: { list: unknown[] } };
    expect(JSON.parse(closeJsonPrefix(cut)!)).toEqual({ code, message, data: { list: data.list.slice(0, 2) } });
  });

  it('returns a complete document as it is, whatever follows it', () => {
    expect(closeJsonPrefix(`${whole}\n`)).toBe(whole);
  });

  it('never keeps part of a record: a field list or a nested list cut inside it drops the whole record', () => {
    expect(JSON.parse(closeJsonPrefix('{"list":[{"id":1,"tags":["a","b"]},{"id":2,"tags":["c",')!)).toEqual({
      list: [{ id: 1, tags: ['a', 'b'] }],
    });
    expect(JSON.parse(closeJsonPrefix('[[1,2],[3,4],[5,')!)).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('closes a list cut before its first record empty, and drops a member whose object was cut', () => {
    expect(JSON.parse(closeJsonPrefix('{"code":0,"data":{"list":[{"id"')!)).toEqual({ code: 0, data: { list: [] } });
    expect(JSON.parse(closeJsonPrefix('{"code":0,"data":{"total":3,"page":{"n"')!)).toEqual({
      code: 0,
      data: { total: 3 },
    });
    expect(closeJsonPrefix('{"code":0,"data":{"page":{"n"')).toBe('{"code":0}');
    expect(closeJsonPrefix('{"message":"a long text that never ends')).toBe('{}');
  });

  it('has nothing to offer for a document that is one long value or not JSON', () => {
    expect(closeJsonPrefix('"a string that goes on')).toBeUndefined();
    expect(closeJsonPrefix('12345')).toBeUndefined();
    expect(closeJsonPrefix('<html><body>')).toBeUndefined();
    expect(closeJsonPrefix('')).toBeUndefined();
  });
});
