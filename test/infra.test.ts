import { ensureMongo, ensureNats } from '@gateway/testing';
import mongoose from 'mongoose';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { testDatabaseUri, testMongoUri, testNatsUrl, uniqueName } from './harness';

jest.setTimeout(20_000);

describe('integration infrastructure', () => {
  describe('NATS', () => {
    let nc: NatsConnection;

    beforeAll(async () => {
      nc = await connect({ servers: testNatsUrl(), name: 'infra-test' });
    });

    afterAll(async () => {
      await nc?.drain();
    });

    it('answers a request through a subscribed responder', async () => {
      const codec = JSONCodec<{ n: number }>();
      const subject = `test.${uniqueName('echo')}`;
      const sub = nc.subscribe(subject);
      void (async () => {
        for await (const msg of sub) msg.respond(codec.encode({ n: codec.decode(msg.data).n + 1 }));
      })();

      const reply = await nc.request(subject, codec.encode({ n: 41 }), { timeout: 2_000 });

      expect(codec.decode(reply.data)).toEqual({ n: 42 });
      sub.unsubscribe();
    });

    it('delivers a published message to every subscriber of its subject', async () => {
      const subject = `test.${uniqueName('fanout')}`;
      const received = [nc.subscribe(subject, { max: 1 }), nc.subscribe(subject, { max: 1 })].map(async (sub) => {
        for await (const msg of sub) return msg.string();
        return undefined;
      });
      await nc.flush();

      nc.publish(subject, 'hello');

      await expect(Promise.all(received)).resolves.toEqual(['hello', 'hello']);
    });

    it('creates a JetStream KV bucket, puts and gets a revisioned value and deletes the bucket', async () => {
      const bucket = uniqueName('infra_kv');
      const js = nc.jetstream();
      const kv = await js.views.kv(bucket, { history: 2 });
      try {
        const first = await kv.put('quota.key_1', '1');
        const second = await kv.update('quota.key_1', '2', first);

        const entry = await kv.get('quota.key_1');
        expect(entry?.string()).toBe('2');
        expect(entry?.revision).toBe(second);
        // A stale revision is refused: KV updates are compare-and-set.
        await expect(kv.update('quota.key_1', '3', first)).rejects.toThrow();
      } finally {
        await kv.destroy();
      }
      const jsm = await nc.jetstreamManager();
      await expect(jsm.streams.info(`KV_${bucket}`)).rejects.toThrow(/stream not found/);
    });
  });

  describe('MongoDB (FerretDB unless MONGODB_URI is set)', () => {
    const ItemSchema = new mongoose.Schema({ key_id: { type: String, required: true }, label: String });
    ItemSchema.index({ key_id: 1 }, { unique: true });
    let connection: mongoose.Connection;

    beforeAll(async () => {
      connection = await mongoose.createConnection(testDatabaseUri()).asPromise();
    });

    afterAll(async () => {
      await connection?.dropDatabase();
      await connection?.close();
    });

    it('gives each test file a database of its own on the shared server', () => {
      expect(connection.name).toMatch(/^infra_[a-z0-9]+_[0-9a-f]{8}$/);
      expect(testDatabaseUri()).not.toBe(testDatabaseUri());
      expect(testDatabaseUri().startsWith(testMongoUri().replace(/\/$/, ''))).toBe(true);
    });

    it('writes and reads a document through mongoose and enforces a unique index', async () => {
      const Item = connection.model('Item', ItemSchema);
      await Item.init();

      await Item.create({ key_id: 'key_1', label: 'first' });
      const found = await Item.findOne({ key_id: 'key_1' }).lean();
      expect(found).toMatchObject({ key_id: 'key_1', label: 'first' });

      await expect(Item.create({ key_id: 'key_1', label: 'duplicate' })).rejects.toMatchObject({ code: 11000 });
      expect(await Item.countDocuments()).toBe(1);
    });
  });

  describe('attaching to what global setup provides', () => {
    it('reuses the given servers and leaves them running on stop', async () => {
      const nats = await ensureNats({ env: { NATS_URL: testNatsUrl() } });
      const mongo = await ensureMongo({ env: { MONGODB_URI: testMongoUri() } });

      expect(nats).toMatchObject({ url: testNatsUrl(), started: false });
      expect(mongo).toMatchObject({ uri: testMongoUri(), started: false });
      await nats.stop();
      await mongo.stop();

      const nc = await connect({ servers: testNatsUrl() });
      await nc.close();
    });
  });
});
