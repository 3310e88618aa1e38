import { openStore, type Store } from '@gateway/store';
import {
  fenceModeOf,
  FencedError,
  UsageLedger,
  type FenceMode,
  type UsageLedgerOptions,
} from '../services/quota-actor/src/limits/usage-ledger';
import { countFinds, testDatabaseUri } from './harness';

/**
 * The usage ledger's fence in both of its modes against the MongoDB-wire server of the tests: an owner that lost
 * its partition writes nothing into the month a newer owner opened, whichever way the fence is checked.
 */
let store: Store;
const MONTH = '2026-11';
const NOW = Date.UTC(2026, 10, 24, 12);
/** The writing owner's lease, as PartitionActor reports it when a flush is sent. */
const held = () => true;
const lapsed = () => false;

/** Runs `step` (another owner's write) after the ledger read the epochs and before its bulk write reaches the server. */
function beforeNextBulkWrite(step: () => Promise<unknown>): void {
  const prototype = Object.getPrototypeOf(store.connection.db!.collection('monthly_usage')) as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const original = prototype.bulkWrite!;
  prototype.bulkWrite = async function (this: unknown, ...args: unknown[]) {
    prototype.bulkWrite = original;
    await step();
    return original.apply(this, args);
  };
}

/** Records the filter of every findOneAndUpdate sent to monthly_usage until `restore()`. */
function filtersOfFindOneAndUpdate(): Record<string, unknown>[] & { restore(): void } {
  const prototype = Object.getPrototypeOf(store.connection.db!.collection('monthly_usage')) as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const original = prototype.findOneAndUpdate!;
  const filters = Object.assign([] as Record<string, unknown>[], {
    restore: () => {
      prototype.findOneAndUpdate = original;
    },
  });
  prototype.findOneAndUpdate = function (this: { collectionName: string }, ...args: unknown[]) {
    if (this.collectionName === 'monthly_usage') filters.push(args[0] as Record<string, unknown>);
    return original.apply(this, args);
  };
  return filters;
}

/**
 * A FerretDB-mode ledger with `keyId`'s month open, whose writes to monthly_usage are listed in `sent` in the order
 * they reach the driver ('flush' for a bulk write, 'grow' for a findOneAndUpdate), the first one held until
 * `releaseFirst()`. `restore()` puts the driver back.
 */
async function ledgerHoldingFirstWrite(keyId: string, options?: UsageLedgerOptions) {
  const prototype = Object.getPrototypeOf(store.connection.db!.collection('monthly_usage')) as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const originals = { findOneAndUpdate: prototype.findOneAndUpdate!, bulkWrite: prototype.bulkWrite! };
  let recording = false;
  const sent: string[] = [];
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  for (const [name, original] of Object.entries(originals)) {
    prototype[name] = async function (this: { collectionName: string }, ...args: unknown[]) {
      if (recording && this.collectionName === 'monthly_usage') {
        sent.push(name === 'bulkWrite' ? 'flush' : 'grow');
        if (sent.length === 1) await firstHeld;
      }
      return original.apply(this, args);
    };
  }
  const restore = () => Object.assign(prototype, originals);
  try {
    const ledger = new UsageLedger(store.connection, 'read-then-write', options);
    const epoch = await ledger.nextEpoch();
    await ledger.open(keyId, MONTH, epoch, NOW);
    recording = true;
    return {
      sent,
      releaseFirst: () => releaseFirst(),
      restore,
      flush: () =>
        ledger.flush([{ keyId, month: MONTH, used: 1, suggestions: 0, days: { '24': 1 } }], epoch, NOW, held),
      grow: () => ledger.grow(keyId, MONTH, epoch, 10, held),
      /** The month as a next owner opens it. */
      reopened: async () => ledger.open(keyId, MONTH, await ledger.nextEpoch(), NOW),
    };
  } catch (error) {
    restore();
    throw error;
  }
}

/** How many finds `step` sent to monthly_usage. */
async function countedReads(step: () => Promise<unknown>): Promise<number> {
  const reads = countFinds(store.connection);
  let counted = 0;
  try {
    await step();
  } finally {
    counted = reads.stop();
  }
  return counted;
}

beforeAll(async () => {
  store = await openStore(testDatabaseUri(), { ensureIndexes: true });
});

afterAll(async () => {
  await store?.close();
});

it('knows the development database for what it is: FerretDB gets the read-then-write fence', async () => {
  expect(await fenceModeOf(store.connection)).toBe('read-then-write');
});

describe.each<FenceMode>(['atomic', 'read-then-write'])('usage ledger with the %s fence', (fence) => {
  let ledger: UsageLedger;
  beforeAll(() => {
    ledger = new UsageLedger(store.connection, fence);
  });

  const key = (name: string) => `key_${fence.replace(/-/g, '')}_${name}`;
  const delta = (keyId: string, used: number, releaseTo?: number) => ({
    keyId,
    month: MONTH,
    used,
    suggestions: 0,
    days: { '24': used },
    ...(releaseTo === undefined ? {} : { releaseTo }),
  });
  const blockDelta = (keyId: string, used: number, releaseTo?: number) => ({
    ...delta(keyId, used, releaseTo),
    againstReservation: true,
  });

  it('counts the flushes of the owner that opened the month', async () => {
    const epoch = await ledger.nextEpoch();
    await ledger.open(key('a'), MONTH, epoch, NOW);
    await ledger.open(key('b'), MONTH, epoch, NOW);
    expect(await ledger.flush([delta(key('a'), 3), delta(key('b'), 5)], epoch, NOW, held)).toEqual([]);
    expect(await ledger.flush([delta(key('a'), 2)], epoch, NOW, held)).toEqual([]);
    const reopened = await ledger.open(key('a'), MONTH, await ledger.nextEpoch(), NOW);
    expect(reopened.used).toBe(5);
  });

  it('drops the block-mode counts of an owner whose key a newer owner opened, and only that key’s', async () => {
    const old = await ledger.nextEpoch();
    await ledger.open(key('c'), MONTH, old, NOW);
    await ledger.open(key('d'), MONTH, old, NOW);
    const newer = await ledger.nextEpoch();
    await ledger.open(key('c'), MONTH, newer, NOW);

    const fenced = await ledger.flush([blockDelta(key('c'), 7), blockDelta(key('d'), 1)], old, NOW, lapsed);
    expect(fenced).toEqual([key('c')]);
    expect(await ledger.flush([delta(key('c'), 4)], newer, NOW, held)).toEqual([]);

    const c = await ledger.open(key('c'), MONTH, await ledger.nextEpoch(), NOW);
    const d = await ledger.open(key('d'), MONTH, await ledger.nextEpoch(), NOW);
    expect(c.used).toBe(4);
    expect(d.used).toBe(1);
  });

  it('releases the unused reservation at a handover, never into a newer owner’s month', async () => {
    const epoch = await ledger.nextEpoch();
    await ledger.open(key('e'), MONTH, epoch, NOW);
    expect(await ledger.grow(key('e'), MONTH, epoch, 100, held)).toBe(100);
    expect(await ledger.flush([blockDelta(key('e'), 30, 30)], epoch, NOW, held)).toEqual([]);
    // A clean handover: the next owner finds no lost reservation and counts exactly what was used.
    const next = await ledger.nextEpoch();
    expect(await ledger.open(key('e'), MONTH, next, NOW)).toMatchObject({ used: 30, reserved: 30 });

    expect(await ledger.grow(key('e'), MONTH, next, 100, held)).toBe(130);
    await expect(ledger.grow(key('e'), MONTH, epoch, 5, lapsed)).rejects.toThrow(FencedError);
    // The previous owner's late release must not shrink the reservation the new owner relies on.
    expect(await ledger.flush([blockDelta(key('e'), 0, 0)], epoch, NOW, lapsed)).toEqual([key('e')]);
    const after = await ledger.open(key('e'), MONTH, await ledger.nextEpoch(), NOW);
    expect(after.reserved).toBe(130);
  });

  it('reads nothing before a flush sent while the lease holds, and reads the epochs past it', async () => {
    const epoch = await ledger.nextEpoch();
    await ledger.open(key('k'), MONTH, epoch, NOW);
    const reads = await countedReads(() =>
      ledger.flush([blockDelta(key('k'), 2), delta(key('k'), 1)], epoch, NOW, held),
    );
    const lateReads = await countedReads(() => ledger.flush([blockDelta(key('k'), 3)], epoch, NOW, lapsed));
    expect({ reads, lateReads }).toEqual(fence === 'atomic' ? { reads: 0, lateReads: 0 } : { reads: 0, lateReads: 1 });
    expect(await ledger.open(key('k'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({ used: 6 });
  });

  it('grows a reservation sent while the lease holds by `_id` alone on FerretDB, and checks the epoch it returns', async () => {
    const filters = filtersOfFindOneAndUpdate();
    try {
      const epoch = await ledger.nextEpoch();
      await ledger.open(key('l'), MONTH, epoch, NOW);
      filters.length = 0;
      expect(await ledger.grow(key('l'), MONTH, epoch, 10, held)).toBe(10);
      expect(await ledger.grow(key('l'), MONTH, epoch, 10, lapsed)).toBe(20);
      const byId = { _id: `${key('l')}:${MONTH}` };
      expect([...filters]).toEqual(
        fence === 'atomic'
          ? [
              { ...byId, epoch },
              { ...byId, epoch },
            ]
          : [byId, { ...byId, epoch }],
      );
      // A document a newer owner claimed is refused whichever filter went out (the lease rules the first out).
      await ledger.open(key('l'), MONTH, await ledger.nextEpoch(), NOW);
      await expect(ledger.grow(key('l'), MONTH, epoch, 5, held)).rejects.toThrow(FencedError);
    } finally {
      filters.restore();
    }
  });

  /** An owner with 25 units reserved, whose key another node opens after its next flush read the epochs. */
  async function ownerAboutToBeOvertaken(keyId: string): Promise<number> {
    const old = await ledger.nextEpoch();
    await ledger.open(keyId, MONTH, old, NOW);
    expect(await ledger.grow(keyId, MONTH, old, 25, held)).toBe(25);
    const newerLedger = new UsageLedger(store.connection, fence);
    const newer = await newerLedger.nextEpoch();
    beforeNextBulkWrite(() => newerLedger.open(keyId, MONTH, newer, NOW));
    return old;
  }

  it('reports a release fenced when a newer owner opened the key between the epoch read and the write', async () => {
    // The newer owner counts the 25 reserved units as used (their fate is unknown to it); the old owner must then
    // not give its 14 unused units back to the customer, or the customer could take them a second time.
    const old = await ownerAboutToBeOvertaken(key('f'));
    expect(await ledger.flush([blockDelta(key('f'), 11, 11)], old, NOW, lapsed)).toEqual([key('f')]);
    expect(await ledger.open(key('f'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({
      used: 25,
      reserved: 25,
    });
  });

  it('keeps the epoch in the filter of block-mode counts sent after the lease lapsed, so a newer owner never counts them twice', async () => {
    const old = await ownerAboutToBeOvertaken(key('g'));
    expect(await ledger.flush([blockDelta(key('g'), 9)], old, NOW, lapsed)).toEqual([key('g')]);
    expect(await ledger.open(key('g'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({ used: 25 });
  });

  it('lets metered counts sent after the lease lapsed land: they only add up, and nobody else counted them', async () => {
    const old = await ledger.nextEpoch();
    await ledger.open(key('h'), MONTH, old, NOW);
    const newerLedger = new UsageLedger(store.connection, fence);
    const newer = await newerLedger.nextEpoch();
    beforeNextBulkWrite(() => newerLedger.open(key('h'), MONTH, newer, NOW));
    expect(await ledger.flush([delta(key('h'), 9)], old, NOW, lapsed)).toEqual([]);
    expect(await newerLedger.flush([delta(key('h'), 4)], newer, NOW, held)).toEqual([]);
    expect(await ledger.open(key('h'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({ used: 13 });
  });

  it('counts the metered usage of an owner a newer owner already overtook', async () => {
    const old = await ledger.nextEpoch();
    await ledger.open(key('i'), MONTH, old, NOW);
    const newer = await ledger.nextEpoch();
    await ledger.open(key('i'), MONTH, newer, NOW);
    expect(await ledger.flush([delta(key('i'), 6)], old, NOW, lapsed)).toEqual([]);
    expect(await ledger.open(key('i'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({ used: 6 });
  });

  it('lands the metered counts of a handover a newer owner overtook, but not its release', async () => {
    const old = await ledger.nextEpoch();
    await ledger.open(key('j'), MONTH, old, NOW);
    expect(await ledger.flush([delta(key('j'), 5)], old, NOW, held)).toEqual([]);
    const newerLedger = new UsageLedger(store.connection, fence);
    const newer = await newerLedger.nextEpoch();
    beforeNextBulkWrite(async () => {
      await newerLedger.open(key('j'), MONTH, newer, NOW);
      await newerLedger.flush([delta(key('j'), 2, 7)], newer, NOW, held);
    });
    // The old owner's release names its own total (8); the newer owner's reservation (7, its own release) stays.
    expect(await ledger.flush([delta(key('j'), 3, 8)], old, NOW, lapsed)).toEqual([key('j')]);
    expect(await ledger.open(key('j'), MONTH, await ledger.nextEpoch(), NOW)).toMatchObject({
      used: 10,
      reserved: 10,
    });
  });
});

it('sends one write at a time with the read-then-write fence (FerretDB can deadlock on concurrent updates), many with the atomic one', async () => {
  const collection = store.connection.db!.collection('monthly_usage');
  const prototype = Object.getPrototypeOf(collection) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const originals = { findOneAndUpdate: prototype.findOneAndUpdate!, bulkWrite: prototype.bulkWrite! };
  let inFlight = 0;
  let most = 0;
  for (const [name, original] of Object.entries(originals)) {
    prototype[name] = async function (this: unknown, ...args: unknown[]) {
      most = Math.max(most, ++inFlight);
      try {
        return await original.apply(this, args);
      } finally {
        inFlight--;
      }
    };
  }
  try {
    const mostConcurrentWrites = async (fence: FenceMode) => {
      most = 0;
      const ledger = new UsageLedger(store.connection, fence);
      const epoch = await ledger.nextEpoch();
      const keys = Array.from({ length: 12 }, (_, i) => `key_concurrency_${fence.replace(/-/g, '')}_${i}`);
      await Promise.all(keys.map((keyId) => ledger.open(keyId, MONTH, epoch, NOW)));
      await Promise.all(
        keys.map((keyId) =>
          ledger.flush([{ keyId, month: MONTH, used: 1, suggestions: 0, days: { '24': 1 } }], epoch, NOW, held),
        ),
      );
      return most;
    };
    expect(await mostConcurrentWrites('read-then-write')).toBe(1);
    expect(await mostConcurrentWrites('atomic')).toBeGreaterThan(1);
  } finally {
    Object.assign(prototype, originals);
  }
});

it('sends a decision’s write on FerretDB before the usage flushes already waiting, after the one in flight', async () => {
  const writes = await ledgerHoldingFirstWrite('key_priority');
  try {
    const written = [writes.flush(), writes.flush(), writes.flush(), writes.grow()];
    await new Promise(setImmediate);
    writes.releaseFirst();
    await Promise.all(written);
    expect(writes.sent).toEqual(['flush', 'grow', 'flush', 'flush']);
    expect(await writes.reopened()).toMatchObject({ used: 10, reserved: 10 });
  } finally {
    writes.restore();
  }
});

it('sends usage flushes on FerretDB that waited their longest wait in turns with the decisions’ writes', async () => {
  const writes = await ledgerHoldingFirstWrite('key_overdue_flush', { longestFlushWaitMs: 50 });
  try {
    const written = [writes.flush(), writes.flush(), writes.flush(), writes.grow()];
    // Two flushes wait past their longest wait behind the first; a reservation joins the queue meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 80));
    written.push(writes.grow());
    writes.releaseFirst();
    await Promise.all(written);
    expect(writes.sent).toEqual(['flush', 'flush', 'grow', 'flush', 'grow']);
    expect(await writes.reopened()).toMatchObject({ used: 20, reserved: 20 });
  } finally {
    writes.restore();
  }
});
