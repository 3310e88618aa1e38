import { randomBytes } from 'node:crypto';
import { waitUntil } from '@gateway/testing';
import { connect, type NatsConnection } from 'nats';
import { LeaseTable, REMOVED_LEASE_MARKER_KEPT_MS } from '../services/quota-actor/src/ownership/lease-table';
import { testNatsUrl } from './harness';

/**
 * The quota-actor's partition leases in a real JetStream KV bucket: one lease per node, compare-and-set ownership,
 * takeover only after the node's lease is past expiry plus the margin and marked dead, clean handovers, and the watched
 * copy that spares the bucket a read per partition and tick.
 */
const TTL_MS = 400;
const MARGIN_MS = 100;
/** For the cases that are not about expiry: a node lease that outlives the case on any machine. */
const LONG_TTL_MS = 60_000;

let nc: NatsConnection;
let bucket: string;
let epochs = 0;
const nextEpoch = () => Promise.resolve(++epochs);
const opened: LeaseTable[] = [];

async function table(nodeId: string, ttlMs = TTL_MS): Promise<LeaseTable> {
  const leases = await LeaseTable.open(nc, { bucket, nodeId, ttlMs, marginMs: MARGIN_MS });
  opened.push(leases);
  return leases;
}

/**
 * Until `leases`' watch has delivered every write made to the bucket so far. Its copy is private: read here only to
 * know when it has caught up, which no public method tells without going to the bucket.
 */
async function caughtUp(leases: LeaseTable): Promise<void> {
  const { state } = await (await nc.jetstreamManager()).streams.info(`KV_${bucket}`);
  const copy = leases as unknown as Record<'partitions' | 'holders', Map<unknown, { revision: number }>>;
  const newest = () =>
    Math.max(0, ...[...copy.partitions.values(), ...copy.holders.values()].map((lease) => lease.revision));
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

/** The key of `leases`' own node lease in the bucket (private: no caller outside the table needs it). */
function leaseKeyOf(leases: LeaseTable): string {
  return (leases as unknown as { holder: { key: string } }).holder.key;
}

/** Resolves at the wall-clock instant `atMs`, at once if it has passed. */
function sleepUntil(atMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - Date.now())));
}

it('lease table - one owner at a time; another takes over only once the node lease is past expiry plus the margin', async () => {
  const [a, b] = [await table('node-a'), await table('node-b')];
  const held = await a.tryAcquire(3, Date.now(), nextEpoch);
  expect(held).toMatchObject({ partition: 3, epoch: expect.any(Number) });
  expect(held!.previous).toBeUndefined();
  expect(held!.validUntil).toBe(a.validUntil);
  await caughtUp(b);
  expect(await b.tryAcquire(3, Date.now(), nextEpoch)).toBeNull();
  expect(await b.tryAcquire(3, Date.now(), nextEpoch, { onlyOrphaned: true })).toBeNull();

  // Renewing a's node lease moves its partition's validity on.
  await sleepUntil(Date.now() + 20);
  expect(await a.renew(Date.now())).toBe(true);
  expect(held!.validUntil).toBe(a.validUntil);
  await caughtUp(b);

  // a stops renewing (a crash): b may take it only after expiry + margin, and learns when a may last have decided.
  const expired = held!.validUntil + MARGIN_MS; // the written expiry
  expect(await b.tryAcquire(3, expired + MARGIN_MS - 1, nextEpoch, { onlyOrphaned: true })).toBeNull();
  await sleepUntil(expired + MARGIN_MS + 5);
  await b.renew(Date.now());
  const taken = await b.tryAcquire(3, Date.now(), nextEpoch, { onlyOrphaned: true });
  expect(taken).toMatchObject({ partition: 3, previous: { diedAt: expired } });
  expect(taken!.epoch).toBeGreaterThan(held!.epoch);
  // a's node lease was marked dead first: its renewal fails, every lease it held is void, and it starts over.
  expect(await a.renew(Date.now())).toBe(false);
  expect(held!.validUntil).toBe(0);
  expect(a.validUntil).toBeGreaterThan(Date.now());
  await caughtUp(a);
  expect(await a.tryAcquire(3, Date.now(), nextEpoch)).toBeNull();
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
  const tables = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((id) => table(id, LONG_TTL_MS)));
  const results = await Promise.all(tables.map((leases) => leases.tryAcquire(9, Date.now(), nextEpoch)));
  expect(results.filter((lease) => lease !== null)).toHaveLength(1);
});

it('lease table - looking at partitions others hold reads the watched copy, not the bucket', async () => {
  const [a, b] = [await table('node-a', LONG_TTL_MS), await table('node-b', LONG_TTL_MS)];
  for (let partition = 0; partition < 16; partition++)
    expect(await a.tryAcquire(partition, Date.now(), nextEpoch)).not.toBeNull();
  await caughtUp(b);
  const bucketReads = nc.subscribe(`$JS.API.DIRECT.GET.KV_${bucket}.>`);
  const legacyReads = nc.subscribe(`$JS.API.STREAM.MSG.GET.KV_${bucket}`);
  await nc.flush();
  for (let tick = 0; tick < 10; tick++) {
    for (let partition = 0; partition < 16; partition++) {
      expect(await b.tryAcquire(partition, Date.now(), nextEpoch, { onlyOrphaned: true })).toBeNull();
    }
  }
  await nc.flush();
  expect(bucketReads.getReceived() + legacyReads.getReceived()).toBe(0);
  bucketReads.unsubscribe();
  legacyReads.unsubscribe();
});

it('lease table - a copy that fell behind costs one refused write, then a read brings it up to date', async () => {
  const [a, b] = [await table('node-a', LONG_TTL_MS), await table('node-b', LONG_TTL_MS)];
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
  expect(await a.renew(Date.now())).toBe(true);
  expect(retaken.validUntil).toBe(a.validUntil);
});

/** Every write to the bucket from now on, by key. */
function bucketWrites(): { keys: () => string[]; stop: () => void } {
  const subscription = nc.subscribe(`$KV.${bucket}.>`);
  const keys: string[] = [];
  void (async () => {
    for await (const message of subscription) keys.push(message.subject.slice(`$KV.${bucket}.`.length));
  })();
  return {
    keys: () => keys,
    stop: () => subscription.unsubscribe(),
  };
}

it('lease table - a node renews one key for all its partitions: holding 16 costs one write per renewal', async () => {
  const a = await table('node-a', LONG_TTL_MS);
  for (let partition = 0; partition < 16; partition++)
    expect(await a.tryAcquire(partition, Date.now(), nextEpoch)).not.toBeNull();
  const writes = bucketWrites();
  await nc.flush();
  for (let renewal = 0; renewal < 5; renewal++) expect(await a.renew(Date.now())).toBe(true);
  await nc.flush();
  expect(writes.keys()).toHaveLength(5);
  expect(new Set(writes.keys()).size).toBe(1);
  expect(writes.keys()[0]).toMatch(/^h\./);
  writes.stop();
});

it('lease table - a dead node’s partitions cost one write marking its lease dead, then one claim each', async () => {
  const a = await table('node-a', 1_000);
  const b = await table('node-b', LONG_TTL_MS);
  const held = await Promise.all(
    Array.from({ length: 16 }, (_, partition) => a.tryAcquire(partition, Date.now(), nextEpoch)),
  );
  expect(held.every((lease) => lease !== null)).toBe(true);
  const diedAt = a.validUntil + MARGIN_MS;
  await caughtUp(b);
  await sleepUntil(diedAt + MARGIN_MS + 5);

  const writes = bucketWrites();
  await nc.flush();
  const taken = await Promise.all(
    Array.from({ length: 16 }, (_, partition) =>
      b.tryAcquire(partition, Date.now(), nextEpoch, { onlyOrphaned: true }),
    ),
  );
  await nc.flush();
  expect(taken.map((lease) => lease?.previous)).toEqual(Array.from({ length: 16 }, () => ({ diedAt })));
  const marks = writes.keys().filter((key) => key.startsWith('h.'));
  expect(marks).toHaveLength(1);
  // A claim and the write of its epoch per partition.
  expect(writes.keys().filter((key) => key.startsWith('p'))).toHaveLength(32);
  writes.stop();
  expect(await a.renew(Date.now())).toBe(false);
});

it('lease table - a partition leased by a node from before node leases: respected until its own expiry, then taken', async () => {
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const expiresAt = Date.now() + TTL_MS;
  await kv.create('p7', JSON.stringify({ owner: 'older-node', expiresAt, epoch: 1 }));
  const b = await table('node-b', LONG_TTL_MS);
  expect(await b.tryAcquire(7, expiresAt + MARGIN_MS, nextEpoch, { onlyOrphaned: true })).toBeNull();
  await sleepUntil(expiresAt + MARGIN_MS + 5);
  const taken = await b.tryAcquire(7, Date.now(), nextEpoch, { onlyOrphaned: true });
  expect(taken).toMatchObject({ partition: 7, previous: { diedAt: expiresAt } });

  // What an older node reads of a lease held on a node lease: an expiry it never reaches, so it never takes it.
  const stored = JSON.parse((await kv.get('p7'))!.string()) as { owner: string; expiresAt: number; holder: string };
  expect(stored).toMatchObject({
    owner: 'node-b',
    expiresAt: Number.MAX_SAFE_INTEGER,
    holder: expect.stringMatching(/^h\./),
  });
});

it('lease table - node leases that are dead or expired and named by no partition are removed; the others stay', async () => {
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const abandoned = await table('node-a', TTL_MS); // holds nothing, then stops renewing
  const crashed = await table('node-c', TTL_MS); // holds a partition, then stops renewing
  expect(await crashed.tryAcquire(1, Date.now(), nextEpoch)).not.toBeNull();
  const b = await table('node-b', LONG_TTL_MS);
  await sleepUntil(Math.max(abandoned.validUntil, crashed.validUntil) + 2 * MARGIN_MS + 5);
  await caughtUp(b);

  await b.forgetDeadHolders(Date.now());
  expect((await kv.get(leaseKeyOf(abandoned)))?.operation).toBe('DEL');
  expect((await kv.get(leaseKeyOf(crashed)))?.operation).toBe('PUT'); // partition 1 still names it
  expect((await kv.get(leaseKeyOf(b)))?.operation).toBe('PUT');

  expect(await b.tryAcquire(1, Date.now(), nextEpoch, { onlyOrphaned: true })).not.toBeNull();
  await caughtUp(b);
  await b.forgetDeadHolders(Date.now());
  expect((await kv.get(leaseKeyOf(crashed)))?.operation).toBe('DEL');
  expect(await abandoned.renew(Date.now())).toBe(false);
});

it('lease table - a node that leaves removes its lease after its releases', async () => {
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const a = await table('node-a', LONG_TTL_MS);
  const key = leaseKeyOf(a);
  await a.release((await a.tryAcquire(4, Date.now(), nextEpoch))!, {});
  await a.leave();
  expect(a.validUntil).toBe(0);
  expect((await kv.get(key))?.operation).toBe('DEL');
});

it("lease table - a removed lease's marker is purged once every node has seen it, and nothing written after it", async () => {
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const jsm = await nc.jetstreamManager();
  const messagesOf = async (key: string) =>
    (await jsm.streams.info(`KV_${bucket}`, { subjects_filter: `$KV.${bucket}.${key}` })).state.subjects?.[
      `$KV.${bucket}.${key}`
    ] ?? 0;
  const left = await table('node-a', LONG_TTL_MS);
  const b = await table('node-b', LONG_TTL_MS);
  const leftKey = leaseKeyOf(left);
  await left.leave();
  await caughtUp(b);
  expect(await messagesOf(leftKey)).toBe(1); // the marker

  await b.forgetDeadHolders(Date.now());
  expect(await messagesOf(leftKey)).toBe(1); // every node may not have seen it yet
  await b.forgetDeadHolders(Date.now() + REMOVED_LEASE_MARKER_KEPT_MS + 1_000);
  expect(await messagesOf(leftKey)).toBe(0);
  expect((await kv.get(leftKey))?.operation).toBeUndefined();

  // A node whose copy is behind purges only what it saw: a later write to the key (a node marking it dead again) stays.
  const stopped = await table('node-c', LONG_TTL_MS);
  const stoppedKey = leaseKeyOf(stopped);
  await stopped.leave();
  await caughtUp(b);
  b.close(); // b's copy stops at the marker
  await kv.create(stoppedKey, JSON.stringify({ node: 'node-c', expiresAt: Date.now(), dead: true }));
  await b.forgetDeadHolders(Date.now() + REMOVED_LEASE_MARKER_KEPT_MS + 1_000);
  expect(await messagesOf(stoppedKey)).toBe(1);
  expect((await kv.get(stoppedKey))?.operation).toBe('PUT');
});

it('lease table - a copy that missed a removal and its purge forgets the lease after one refused write', async () => {
  const a = await table('node-a', TTL_MS); // holds nothing, then stops renewing
  // b and c outlive the minute the marker is kept, which c's second call below pretends has passed.
  const b = await table('node-b', 10 * LONG_TTL_MS);
  const c = await table('node-c', 10 * LONG_TTL_MS);
  const aKey = leaseKeyOf(a);
  await sleepUntil(a.validUntil + 2 * MARGIN_MS + 5);
  await caughtUp(b);
  await caughtUp(c);
  b.close(); // b's copy stops at a's expired lease

  await c.forgetDeadHolders(Date.now());
  // c purges the marker its own removal left once its copy holds it: the watch brings it, as to every other node.
  await caughtUp(c);
  await c.forgetDeadHolders(Date.now() + REMOVED_LEASE_MARKER_KEPT_MS + 1_000);
  const jsm = await nc.jetstreamManager();
  const { state } = await jsm.streams.info(`KV_${bucket}`, { subjects_filter: `$KV.${bucket}.${aKey}` });
  expect(state.subjects?.[`$KV.${bucket}.${aKey}`] ?? 0).toBe(0);

  const copy = () => (b as unknown as { holders: Map<string, { value: unknown }> }).holders;
  expect(copy().get(aKey)?.value).toBeTruthy();
  await b.forgetDeadHolders(Date.now());
  expect(copy().has(aKey)).toBe(false);
});

it('lease table - a customer flush counts the live nodes and the older nodes that hold a partition', async () => {
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const b = await table('node-b', LONG_TTL_MS);
  await table('node-c', LONG_TTL_MS);
  const expiresAt = Date.now() + LONG_TTL_MS;
  // Leases written by nodes from before node leases: one node holding two partitions, one that released its
  // partition, one whose lease ran out (expired past the margin).
  await kv.create('p3', JSON.stringify({ owner: 'older-node', expiresAt, epoch: 1 }));
  await kv.create('p4', JSON.stringify({ owner: 'older-node', expiresAt, epoch: 2 }));
  await kv.create('p5', JSON.stringify({ owner: 'older-released', expiresAt, epoch: 3, released: { rates: {} } }));
  await kv.create('p6', JSON.stringify({ owner: 'older-gone', expiresAt: Date.now() - 2 * MARGIN_MS, epoch: 4 }));
  await caughtUp(b);

  expect(b.liveCount(Date.now())).toBe(2); // the shares: node leases only
  expect(b.countingNodes(Date.now())).toBe(3); // b, c and older-node
});

it('lease table - the live nodes are those whose lease has not expired, each counted once', async () => {
  const a = await table('node-a', LONG_TTL_MS);
  const b = await table('node-b', 5_000);
  const c = await table('node-c', LONG_TTL_MS);
  await caughtUp(a);
  expect(a.liveCount(Date.now())).toBe(3);
  expect(a.liveCount(b.validUntil + MARGIN_MS + 1)).toBe(2); // past b's written expiry

  // c lost its lease (marked dead, say) and started over: one node still, on its new lease.
  const kv = await nc.jetstream().views.kv(bucket, { history: 1 });
  const cKey = leaseKeyOf(c);
  const cEntry = (await kv.get(cKey))!;
  await kv.update(cKey, JSON.stringify({ node: 'node-c', expiresAt: Date.now(), dead: true }), cEntry.revision);
  expect(await c.renew(Date.now())).toBe(false);
  await caughtUp(a);
  expect(a.liveCount(Date.now())).toBe(3);
  await c.leave();
  await caughtUp(a);
  expect(a.liveCount(Date.now())).toBe(2);
});
