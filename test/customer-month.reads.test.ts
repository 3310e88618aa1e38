import { randomBytes } from 'node:crypto';
import { monthlyUsageId, openStore, type Store } from '@gateway/store';
import { CustomerMonth } from '../services/quota-actor/src/limits/customer-month';
import { countFinds, testDatabaseUri } from './harness';

/**
 * The customer-month reads on a real MongoDB-wire server: the node reads the customers asked for together in one
 * `monthly_usage` query (FerretDB reads the whole collection for each one), one read at a time, each customer getting
 * its own keys' shares.
 */
const MONTH = '2026-11';
/** The fields these tests write; the readers ignore the rest of a real document. */
interface Doc {
  _id: string;
  key_id: string;
  customer_id?: string;
  month?: string;
  used?: number;
  reserved?: number;
  carried_over?: number;
}
let store: Store;

/** A customer with keys whose month documents hold these counts (undefined: the key has no document yet). */
async function customerWith(usage: ({ used: number; carried_over?: number } | undefined)[]): Promise<string> {
  const customerId = `cus_${randomBytes(6).toString('hex')}`;
  const db = store.connection.db!;
  for (const [i, counts] of usage.entries()) {
    const keyId = `${customerId}_k${i}`;
    await db
      .collection<Doc>('api_keys')
      .insertOne({ _id: randomBytes(32).toString('hex'), key_id: keyId, customer_id: customerId });
    if (counts) {
      await db
        .collection<Doc>('monthly_usage')
        .insertOne({ _id: monthlyUsageId(keyId, MONTH), key_id: keyId, month: MONTH, reserved: 0, ...counts });
    }
  }
  return customerId;
}

beforeAll(async () => {
  store = await openStore(testDatabaseUri());
});

afterAll(async () => {
  await store?.close();
});

it('reads the customers asked for in one turn with one query, each with its own keys', async () => {
  const a = await customerWith([{ used: 5 }, { used: 7, carried_over: 2 }, undefined]);
  const b = await customerWith([{ used: 1 }]);
  const c = await customerWith([]);
  const month = new CustomerMonth(store.connection);
  const usageReads = countFinds(store.connection, 'monthly_usage');
  const keyListReads = countFinds(store.connection, 'api_keys');
  const [ofA, ofB, ofC] = await Promise.all([month.read(a, MONTH), month.read(b, MONTH), month.read(c, MONTH)]);
  expect({ usage: usageReads.stop(), keyLists: keyListReads.stop() }).toEqual({ usage: 1, keyLists: 1 });
  expect([ofA.total, ofB.total, ofC.total]).toEqual([
    { used: 10, suggestions: 0 },
    { used: 1, suggestions: 0 },
    { used: 0, suggestions: 0 },
  ]);
  expect([...ofA.keys.keys()].sort()).toEqual([`${a}_k0`, `${a}_k1`]);
});

it('reads one batch at a time: customers asked for while one runs share the next, which begins after them', async () => {
  const [a, b, c] = [
    await customerWith([{ used: 2 }]),
    await customerWith([{ used: 3 }]),
    await customerWith([{ used: 0 }]),
  ];
  const month = new CustomerMonth(store.connection);
  const usageReads = countFinds(store.connection, 'monthly_usage');
  const first = month.read(a, MONTH);
  await new Promise(setImmediate); // the first batch (a alone) is now reading
  await store.connection
    .db!.collection<Doc>('monthly_usage')
    .updateOne({ _id: monthlyUsageId(`${b}_k0`, MONTH) }, { $inc: { used: 4 } });
  const [ofA, ofB, ofC] = await Promise.all([first, month.read(b, MONTH, { fresh: true }), month.read(c, MONTH)]);
  expect(usageReads.stop()).toBe(2);
  expect([ofA.total.used, ofB.total.used, ofC.total.used]).toEqual([2, 7, 0]);
});

it('fails every customer of a batch whose read fails, and reads them again on the next ask', async () => {
  const [a, b] = [await customerWith([{ used: 1 }]), await customerWith([{ used: 2 }])];
  const month = new CustomerMonth(store.connection);
  const collection = store.connection.db!.collection('monthly_usage');
  const prototype = Object.getPrototypeOf(collection) as { find: (...args: unknown[]) => unknown };
  const find = prototype.find;
  prototype.find = function (this: { collectionName: string }, ...args: unknown[]) {
    if (this.collectionName === 'monthly_usage') throw new Error('database gone');
    return find.apply(this, args);
  };
  try {
    const [ofA, ofB] = await Promise.allSettled([month.read(a, MONTH), month.read(b, MONTH)]);
    expect([ofA, ofB]).toMatchObject([
      { status: 'rejected', reason: new Error('database gone') },
      { status: 'rejected', reason: new Error('database gone') },
    ]);
  } finally {
    prototype.find = find;
  }
  expect([(await month.read(a, MONTH)).total.used, (await month.read(b, MONTH)).total.used]).toEqual([1, 2]);
});

it('sums the units before a chain from the read already under way for the customer-month, if there is one', async () => {
  const a = await customerWith([{ used: 4 }, { used: 6, carried_over: 1 }]);
  const month = new CustomerMonth(store.connection);
  const usageReads = countFinds(store.connection, 'monthly_usage');
  month.peek(a, MONTH, Date.now()); // a decision's quota headers start a read
  expect(await month.unitsBefore(a, MONTH, 'requests')).toBe(9);
  expect(await month.unitsBefore(a, MONTH, 'requests')).toBe(9); // nothing under way: a read of its own
  expect(usageReads.stop()).toBe(2);
});

/** Three customers of one key each, that used these units. */
async function threeCustomers(used: [number, number, number]): Promise<[string, string, string]> {
  return [
    await customerWith([{ used: used[0] }]),
    await customerWith([{ used: used[1] }]),
    await customerWith([{ used: used[2] }]),
  ];
}

/** Polls peek until it knows the customer-month (a background read landed). */
async function landed(month: CustomerMonth, customerId: string): Promise<void> {
  while (month.peek(customerId, MONTH, 0) === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
}

it('paces background reads: customers coming due one after another wait for one read, batchGapMs after the last', async () => {
  const [a, b, c] = await threeCustomers([1, 2, 3]);
  // A gap far longer than a read, so that b and c are both asked for before it ends, even on a slow machine.
  const month = new CustomerMonth(store.connection, { refreshMs: 60_000, batchGapMs: 2_000 });
  const usageReads = countFinds(store.connection, 'monthly_usage');
  const firstAt = Date.now();
  expect(month.peek(a, MONTH, firstAt)).toBeUndefined();
  await landed(month, a);
  // Due one after another, in turns of their own: read back to back, these were two queries.
  month.peek(b, MONTH, Date.now());
  await new Promise((resolve) => setTimeout(resolve, 20));
  month.peek(c, MONTH, Date.now());
  await landed(month, b);
  await landed(month, c);
  expect(usageReads.stop()).toBe(2);
  expect(Date.now() - firstAt).toBeGreaterThanOrEqual(1_990);
  expect([month.peek(b, MONTH, 0)?.total.used, month.peek(c, MONTH, 0)?.total.used]).toEqual([2, 3]);
});

it('starts a read a caller waits for at once, also one that joins a background read still held back', async () => {
  const [a, b, c] = await threeCustomers([4, 5, 6]);
  // Held back for a minute: a caller that waited for the pacing would time the test out.
  const month = new CustomerMonth(store.connection, { refreshMs: 600_000, batchGapMs: 60_000 });
  await month.read(a, MONTH);
  const usageReads = countFinds(store.connection, 'monthly_usage');
  month.peek(b, MONTH, Date.now());
  month.peek(c, MONTH, Date.now());
  const startedAt = Date.now();
  expect((await month.read(b, MONTH)).total.used).toBe(5);
  expect((await month.read(a, MONTH, { fresh: true })).total.used).toBe(4);
  expect(Date.now() - startedAt).toBeLessThan(30_000);
  expect(month.peek(c, MONTH, 0)?.total.used).toBe(6); // it shared b's batch
  expect(usageReads.stop()).toBe(2);
});
