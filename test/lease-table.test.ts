import { randomBytes } from 'node:crypto';
import { waitUntil } from '@gateway/testing';
import { connect, type NatsConnection } from 'nats';
import { LeaseTable } from '../services/quota-actor/src/ownership/lease-table';
import { testNatsUrl } from './harness';

/**
 * The quota-actor's partition leases in a real JetStream KV bucket: compare-and-set ownership, takeover only after
 * expiry plus the margin, clean handovers, and the watched copy that spares the bucket a read per partition and tick.
 */
const TTL_MS = 400;
const MARGIN_MS = 100;

let nc: NatsConnection;
let bucket: string;
let epochs = 0;
const nextEpoch = () => Promise.resolve(++epochs);
const opened: LeaseTable[] = [];

async function table(nodeId: string): Promise<LeaseTable> {
  const leases = await LeaseTable.open(nc, { bucket, nodeId, ttlMs: TTL_MS, marginMs: MARGIN_MS });
  opened.push(leases);
  return leases;
}

/**
 * Until `leases`' watch has delivered every write made to the bucket so far. Its copy is private: read here only to
 * know when it has caught up, which no public method tells without going to the bucket.
 */
async function caughtUp(leases: LeaseTable): Promise<void> {
  const { state } = await (await nc.jetstreamManager()).streams.info(`KV_${bucket}`);
  const seen = (leases as unknown as { seen: Map<number, { revision: number }> }).seen;
  const newest = () => Math.max(0, ...[...seen.values()].map((lease) => lease.revision));
  await waitUntil(async () => newest() >= state.last_seq, {
    timeoutMs: 10_000,
    intervalMs: 5,
    onTimeout: () => new Error(`the watch delivered up to revision ${newest()} of ${state.last_seq}`),
  });
}

beforeAll(async () => {
  nc = await connect({ servers: testNatsUrl() });
});

beforeEach(() => {
  bucket = `leases-test-${randomBytes(4).toString('hex')}`;
});

afterEach(async () => {
  opened.splice(0).forEach((leases) => leases.close());
  await (await nc.jetstreamManager()).streams.delete(`KV_${bucket}`).catch(() => undefined);
});

afterAll(async () => {
  await nc.drain();
});

it('lease table - one owner at a time; another takes over only once the lease is past expiry plus the margin', async () => {
  const [a, b] = [await table('node-a'), await table('node-b')];
  const held = await a.tryAcquire(3, Date.now(), nextEpoch);
  expect(held).toMatchObject({ partition: 3, epoch: expect.any(Number) });
  expect(held!.previous).toBeUndefined();
  await caughtUp(b);
  expect(await b.tryAcquire(3, Date.now(), nextEpoch)).toBeNull();
  expect(await b.tryAcquire(3, Date.now(), nextEpoch, { onlyOrphaned: true })).toBeNull();

  // a stops renewing (a crash): b may take it only after expiry + margin, and learns when a may last have decided.
  const expired = held!.validUntil + MARGIN_MS; // the written expiry
  expect(await b.tryAcquire(3, expired + MARGIN_MS - 1, nextEpoch, { onlyOrphaned: true })).toBeNull();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expired + MARGIN_MS + 5 - Date.now())));
  const taken = await b.tryAcquire(3, Date.now(), nextEpoch, { onlyOrphaned: true });
  expect(taken).toMatchObject({ partition: 3, previous: { diedAt: expired } });
  expect(taken!.epoch).toBeGreaterThan(held!.epoch);
  // The old holder's renewal fails: it must stop.
  expect(await a.renew(held!, Date.now())).toBe(false);
});

it('lease table - a released lease goes, with its buckets, to a node below its share, not to an orphan hunt', async () => {
  const [a, b] = [await table('node-a'), await table('node-b')];
  const held = (await a.tryAcquire(5, Date.now(), nextEpoch))!;
  await a.release(held, { k1: 4.5 });
  expect(held.validUntil).toBe(0);
  await caughtUp(b);
  expect(await b.tryAcquire(5, Date.now(), nextEpoch, { onlyOrphaned: true })).toBeNull();
  const taken = await b.tryAcquire(5, Date.now(), nextEpoch);
  expect(taken).toMatchObject({ partition: 5, previous: { rates: { k1: 4.5 } } });
});

it('lease table - two nodes racing for a free partition: exactly one wins', async () => {
  const tables = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((id) => table(id)));
  const results = await Promise.all(tables.map((leases) => leases.tryAcquire(9, Date.now(), nextEpoch)));
  expect(results.filter((lease) => lease !== null)).toHaveLength(1);
});

it('lease table - looking at partitions others hold reads the watched copy, not the bucket', async () => {
  const [a, b] = [await table('node-a'), await table('node-b')];
  const takenAt = Date.now();
  for (let partition = 0; partition < 16; partition++) await a.tryAcquire(partition, takenAt, nextEpoch);
  await caughtUp(b);
  const bucketReads = nc.subscribe(`$JS.API.DIRECT.GET.KV_${bucket}.>`);
  const legacyReads = nc.subscribe(`$JS.API.STREAM.MSG.GET.KV_${bucket}`);
  await nc.flush();
  for (let tick = 0; tick < 10; tick++) {
    for (let partition = 0; partition < 16; partition++) {
      // At the time the leases were taken: a never renews them here, and on a busy machine 160 looks can outlast
      // TTL_MS, after which b would rightly go to the bucket for an orphan.
      expect(await b.tryAcquire(partition, takenAt, nextEpoch, { onlyOrphaned: true })).toBeNull();
    }
  }
  await nc.flush();
  expect(bucketReads.getReceived() + legacyReads.getReceived()).toBe(0);
  bucketReads.unsubscribe();
  legacyReads.unsubscribe();
});

it('lease table - a copy that fell behind costs one refused write, then a read brings it up to date', async () => {
  const [a, b] = [await table('node-a'), await table('node-b')];
  await a.release((await a.tryAcquire(2, Date.now(), nextEpoch))!, { k: 1 });
  await caughtUp(b);
  b.close(); // b's copy now stays at "released"
  const retaken = (await a.tryAcquire(2, Date.now(), nextEpoch))!;
  expect(retaken).not.toBeNull();

  const writes = nc.subscribe(`$KV.${bucket}.p2`);
  await nc.flush();
  expect(await b.tryAcquire(2, Date.now(), nextEpoch)).toBeNull(); // stale revision: refused, then read
  await nc.flush();
  expect(writes.getReceived()).toBe(1);
  expect(await b.tryAcquire(2, Date.now(), nextEpoch)).toBeNull(); // up to date: a holds it, no write tried
  await nc.flush();
  expect(writes.getReceived()).toBe(1);
  writes.unsubscribe();
  expect(await a.renew(retaken, Date.now())).toBe(true);
});
