import { freePort } from '@gateway/testing';
import mongoose from 'mongoose';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStackDatabase, type StackDatabase } from './stack-database';

jest.setTimeout(90_000);

/** The machine's PostgreSQL (every machine of this kind runs one on 5432), as its local superuser. */
const LOCAL_POSTGRESQL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The tools' place (CI keeps them outside the clone), without a MONGODB_URI to attach to. */
const toolsEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  GATEWAY_TOOLS_DIR: process.env.GATEWAY_TOOLS_DIR,
  ...extra,
});

const databaseOf = (opened: StackDatabase) => new URL(opened.databaseUri).pathname.slice(1);

async function withClient<T>(opened: StackDatabase, use: (db: mongoose.mongo.Db) => Promise<T>): Promise<T> {
  const client = new mongoose.mongo.MongoClient(opened.databaseUri);
  try {
    return await use(client.db());
  } finally {
    await client.close();
  }
}

describe('the local stack database', () => {
  const dirs: string[] = [];
  const stateDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stack-database-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the stack on PostgreSQL in one database per state directory, found again on the next start', async () => {
    const first = await stateDir();
    const env = toolsEnv({ STACK_FERRETDB_POSTGRESQL_URL: LOCAL_POSTGRESQL });
    const opened = await openStackDatabase(env, first, () => undefined);
    let database = '';
    try {
      expect(opened.backend).toBe('postgresql');
      database = databaseOf(opened);
      expect(database).toMatch(/^gateway_[0-9a-f]{12}$/);
      await withClient(opened, (db) => db.collection('kept').insertOne({ _id: 'demo' } as never));
    } finally {
      await opened.stop();
    }

    const again = await openStackDatabase(env, first, () => undefined);
    const fresh = await openStackDatabase(env, await stateDir(), () => undefined);
    try {
      expect(databaseOf(again)).toBe(database);
      expect(await withClient(again, (db) => db.collection('kept').findOne({ _id: 'demo' } as never))).toEqual({
        _id: 'demo',
      });
      // A new state directory (new secrets) never opens the records of another.
      expect(databaseOf(fresh)).not.toBe(database);
    } finally {
      await withClient(again, (db) => db.dropDatabase());
      await again.stop();
      await fresh.stop();
    }
  });

  it('stays on SQLite files in the state directory unless asked, with `none`, and when PostgreSQL cannot be used', async () => {
    // Something that listens but is no PostgreSQL: FerretDB starts and cannot use it.
    const notPostgresql = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => notPostgresql.listen(0, '127.0.0.1', resolve));
    const { port } = notPostgresql.address() as AddressInfo;
    const settings = [
      undefined,
      'none',
      `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      `postgres://postgres@127.0.0.1:${port}/postgres`,
    ];
    try {
      for (const setting of settings) {
        const dir = await stateDir();
        const logged: string[] = [];
        const env = toolsEnv(setting === undefined ? {} : { STACK_FERRETDB_POSTGRESQL_URL: setting });
        const opened = await openStackDatabase(env, dir, (message) => logged.push(message));
        try {
          expect(opened.backend).toBe('sqlite');
          expect(databaseOf(opened)).toBe('gateway');
          await withClient(opened, (db) => db.collection('kept').insertOne({ _id: 'demo' } as never));
          expect(await readdir(join(dir, 'ferretdb'))).toContain('gateway.sqlite');
          if (setting?.startsWith('postgres:')) expect(logged.join('\n')).toMatch(/FerretDB on SQLite instead/);
        } finally {
          await opened.stop();
        }
      }
    } finally {
      notPostgresql.close();
    }
  });
});
