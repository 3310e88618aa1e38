import { IdTable } from './id-table';

describe('IdTable', () => {
  it('keeps values by id, counts them and gives each back once when deleted', () => {
    const table = new IdTable<{ n: number }>();
    const one = { n: 1 };
    table.set('a', one);
    table.set('b', { n: 2 });
    expect(table.size).toBe(2);
    expect(table.get('a')).toBe(one);
    expect(table.has('b')).toBe(true);
    expect(table.delete('a')).toBe(one);
    expect(table.delete('a')).toBeUndefined();
    expect(table.get('a')).toBeUndefined();
    expect(table.has('a')).toBe(false);
    expect(table.size).toBe(1);
  });

  it('replaces the value of an id it has without counting it twice', () => {
    const table = new IdTable<string>();
    table.set('x', 'first');
    table.set('x', 'second');
    expect(table.size).toBe(1);
    expect(table.get('x')).toBe('second');
  });

  it("takes any string as an id, Object.prototype's names and numeric ids included", () => {
    const table = new IdTable<number>();
    const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', '10', '4294967295', '-1', '', 'é'];
    ids.forEach((id, index) => table.set(id, index));
    expect(table.size).toBe(ids.length);
    ids.forEach((id, index) => expect(table.get(id)).toBe(index));
    expect(table.ids().sort()).toEqual([...ids].sort());
    expect(table.values().sort((a, b) => a - b)).toEqual(ids.map((_, index) => index));
    expect(table.get('valueOf')).toBeUndefined();
    expect(table.has('hasOwnProperty')).toBe(true);
    for (const id of ids) table.delete(id);
    expect(table.size).toBe(0);
    expect(table.ids()).toEqual([]);
  });

  it('gives copies of its ids and values, so the table can change while they are gone through', () => {
    const table = new IdTable<number>();
    for (let i = 0; i < 5; i++) table.set(`id${i}`, i);
    for (const id of table.ids()) {
      table.delete(id);
      table.set(`${id}-again`, 0);
    }
    expect(table.size).toBe(5);
    expect(table.ids().every((id) => id.endsWith('-again'))).toBe(true);
  });

  it('stays exact through churn: a window of ids in flight over many that came and went', () => {
    const table = new IdTable<number>();
    const model = new Map<string, number>();
    const mismatches: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      const id = n.toString(36);
      table.set(id, n);
      model.set(id, n);
      if (n >= 64) {
        const gone = (n - 64 - (n % 3)).toString(36);
        if (table.delete(gone) !== model.get(gone)) mismatches.push(`delete ${gone}`);
        model.delete(gone);
      }
      if (table.size !== model.size) mismatches.push(`size after ${id}`);
    }
    expect(mismatches).toEqual([]);
    expect(new Set(table.ids())).toEqual(new Set(model.keys()));
    for (const [id, value] of model) expect(table.get(id)).toBe(value);
  });

  it('is empty after clear and usable again', () => {
    const table = new IdTable<number>();
    table.set('a', 1);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.get('a')).toBeUndefined();
    table.set('a', 2);
    expect(table.get('a')).toBe(2);
  });
});
