import { truncateJson } from './truncate';

function reportPage(rows: number) {
  return {
    code: 0,
    message: 'OK',
    request_id: 'req-1',
    data: {
      list: Array.from({ length: rows }, (_, index) => ({
        dimensions: { ad_id: String(1_700_000_000_000_000_000n + BigInt(index)), stat_time_day: '2026-10-01 00:00:00' },
        metrics: { spend: `${(index * 1.37).toFixed(2)}`, impressions: String(index * 101), clicks: String(index) },
      })),
      page_info: { page: 1, page_size: 1000, total_number: 4321, total_page: 5 },
    },
  };
}

describe('truncation at record boundaries (spec 4.3 rule 4)', () => {
  it('leaves an answer within the limit untouched', () => {
    const page = reportPage(10);
    const result = truncateJson(page, 100_000);
    expect(result.truncated).toBe(false);
    expect(result.value).toBe(page);
    expect(result.originalChars).toBe(JSON.stringify(page).length);
  });

  it('cuts the record list of a large report, keeping whole records, the envelope and page_info', () => {
    const page = reportPage(1000);
    const original = JSON.stringify(page);
    expect(original.length).toBeGreaterThan(100_000);
    const result = truncateJson(page, 100_000, original);
    const value = result.value as ReturnType<typeof reportPage>;
    const text = JSON.stringify(value);

    expect(result.truncated).toBe(true);
    expect(result.originalChars).toBe(original.length);
    expect(result.returnedChars).toBe(text.length);
    expect(text.length).toBeLessThanOrEqual(100_000);
    expect(JSON.parse(text)).toEqual(value);
    expect(value.data.page_info).toEqual(page.data.page_info);
    expect(value.code).toBe(0);
    expect(value.data.list.length).toBe(result.records!.returned);
    expect(result.records).toMatchObject({ path: 'data.list', total: 1000 });
    // whole leading records, identical to the originals, and as many as fit
    expect(value.data.list).toEqual(page.data.list.slice(0, value.data.list.length));
    const oneMore = { ...value, data: { ...value.data, list: page.data.list.slice(0, value.data.list.length + 1) } };
    expect(JSON.stringify(oneMore).length).toBeGreaterThan(100_000);
  });

  it('does not modify the input', () => {
    const page = reportPage(1000);
    const before = JSON.stringify(page);
    truncateJson(page, 20_000);
    expect(JSON.stringify(page)).toBe(before);
  });

  it('cuts the next list too when one list is not enough', () => {
    const value = {
      a: Array.from({ length: 300 }, (_, i) => `a-${i}-${'x'.repeat(40)}`),
      b: Array(300).fill('y'.repeat(50)),
    };
    const result = truncateJson(value, 5_000);
    const text = JSON.stringify(result.value);
    expect(result.truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(5_000);
    expect(JSON.parse(text)).toEqual(result.value);
  });

  it('finds the record list wherever it is (store_list, a top-level array)', () => {
    const stores = {
      code: 0,
      data: { store_list: Array.from({ length: 500 }, (_, i) => ({ store_id: `s${i}`, n: 'z'.repeat(60) })) },
    };
    expect(truncateJson(stores, 4_000).records?.path).toBe('data.store_list');
    const top = Array.from({ length: 500 }, (_, i) => ({ i, n: 'z'.repeat(60) }));
    const result = truncateJson(top, 4_000);
    expect(result.records?.path).toBe('');
    expect((result.value as unknown[]).length).toBeGreaterThan(0);
  });

  it('gives null, still valid JSON, when no list can make the answer fit', () => {
    const result = truncateJson({ blob: 'q'.repeat(10_000) }, 2_000);
    expect(result).toMatchObject({ truncated: true, value: null });
  });

  it('counts characters exactly as JSON.stringify does, escapes and non-ASCII included', () => {
    const value = {
      list: Array.from({ length: 200 }, (_, i) => ({ s: `"quote" \\ back\nline é 🎉 ${i}`, n: i, b: true, z: null })),
    };
    const result = truncateJson(value, 3_000);
    expect(result.returnedChars).toBe(JSON.stringify(result.value).length);
    expect(result.returnedChars).toBeLessThanOrEqual(3_000);
  });
});
