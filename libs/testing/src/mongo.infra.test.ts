import mongoose from 'mongoose';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { InfraUnavailableError } from './infra.error';
import { ensureMongo, pingMongo, type MongoHandle } from './mongo.infra';
import { findOnPath, toolsBinDir } from './repo-paths';

jest.setTimeout(60_000);

const LOCAL_POSTGRESQL = 'postgres://postgres@127.0.0.1:5432/postgres';

const hasFerretdb = findOnPath('ferretdb', { PATH: toolsBinDir() }) !== undefined;

/** Where the tools are (CI keeps them outside the clone), without a MONGODB_URI to attach to. */
function toolsEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_TOOLS_DIR: process.env.GATEWAY_TOOLS_DIR };
}

describe('ensureMongo', () => {
  let emptyTools: string;

  beforeAll(async () => {
    emptyTools = await mkdtemp(join(tmpdir(), 'mongo-infra-tools-'));
  });

  afterAll(async () => {
    await rm(emptyTools, { recursive: true, force: true });
  });

  (hasFerretdb ? describe : describe.skip)('with the FerretDB of .tools/bin', () => {
    let started: MongoHandle;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'mongo-infra-test-'));
      started = await ensureMongo({ env: toolsEnv(), dataDir });
    });

    afterAll(async () => {
      await started?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('starts FerretDB on a free loopback port with its SQLite files in the given directory', async () => {
      expect(started.started).toBe(true);
      expect(started.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      await expect(pingMongo(started.uri)).resolves.toEqual({ ok: true });
      expect(await readdir(dataDir)).toContain('state.json');
    });

    it('attaches to MONGODB_URI when it is set and leaves that server running on stop', async () => {
      const attached = await ensureMongo({ env: { MONGODB_URI: started.uri } });

      expect(attached).toMatchObject({ uri: started.uri, started: false });
      await attached.stop();
      await expect(pingMongo(started.uri)).resolves.toEqual({ ok: true });
    });

    it('runs FerretDB on PostgreSQL when given one, and says so when PostgreSQL cannot be used', async () => {
      // The machine's PostgreSQL (every machine of this kind runs one on 5432), as its local superuser.
      const onPostgres = await ensureMongo({ env: toolsEnv(), postgresqlUrl: LOCAL_POSTGRESQL });
      try {
        expect(onPostgres).toMatchObject({ started: true, backend: 'postgresql' });
        const client = new mongoose.mongo.MongoClient(onPostgres.uri);
        const db = client.db(`mongo_infra_${process.pid}_${Date.now()}`);
        try {
          await db.collection('docs').insertOne({ _id: 'a', n: 1 } as never);
          await db.collection('docs').updateOne({ _id: 'a' } as never, { $inc: { n: 1 } });
          expect(await db.collection('docs').findOne({ _id: 'a' } as never)).toEqual({ _id: 'a', n: 2 });
        } finally {
          await db.dropDatabase();
          await client.close();
        }
      } finally {
        await onPostgres.stop();
      }

      const unusable = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
      const error = await ensureMongo({ env: toolsEnv(), postgresqlUrl: unusable, startTimeoutMs: 10_000 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InfraUnavailableError);
      expect((error as Error).message).toContain(`FerretDB could not use PostgreSQL at ${unusable}`);
    });

    it('stops the FerretDB it started and keeps a data directory it was given', async () => {
      const ownDir = await mkdtemp(join(tmpdir(), 'mongo-infra-own-'));
      const own = await ensureMongo({ env: toolsEnv(), dataDir: ownDir });

      await own.stop();

      await expect(pingMongo(own.uri, 500)).resolves.toMatchObject({ ok: false });
      expect(await readdir(ownDir)).toContain('state.json');
      await rm(ownDir, { recursive: true, force: true });
    });
  });

  it('says what is wrong when MONGODB_URI does not answer', async () => {
    const uri = `mongodb://127.0.0.1:${await freePort()}/`;

    const error = await ensureMongo({ env: { MONGODB_URI: uri } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InfraUnavailableError);
    expect((error as Error).message).toContain(`MONGODB_URI=${uri} does not answer a ping`);
  });

  it('explains how to provide a database when FerretDB is missing and building is off', async () => {
    const error = await ensureMongo({ env: { GATEWAY_TOOLS_DIR: emptyTools }, install: false }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(InfraUnavailableError);
    expect((error as Error).message).toMatch(
      /no FerretDB binary at .*Run scripts\/tools\/install\.sh .*set MONGODB_URI/,
    );
  });

  // Only meaningful where Go lives outside /usr/bin:/bin; elsewhere this would start a real build.
  const goOnMinimalPath = findOnPath('go', { PATH: '/usr/bin:/bin' }) !== undefined;
  (goOnMinimalPath ? it.skip : it)(
    'explains how to provide a database when Go is missing to build FerretDB',
    async () => {
      const error = await ensureMongo({ env: { PATH: '/usr/bin:/bin', GATEWAY_TOOLS_DIR: emptyTools } }).catch(
        (e: unknown) => e,
      );

      expect(error).toBeInstanceOf(InfraUnavailableError);
      expect((error as Error).message).toMatch(/FerretDB could not be built by scripts\/tools\/install\.sh/);
      expect((error as Error).message).toMatch(/install Go >= 1\.22 .* or set MONGODB_URI/);
    },
  );
});
