import { ensureMongo, ensureMongoPreferringPostgresql, type MongoHandle } from '@gateway/testing';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** FerretDB on PostgreSQL answers within a few seconds; one that does not is given up for SQLite. */
const POSTGRESQL_START_MS = 10_000;

export interface StackDatabase extends MongoHandle {
  /** The server's URI with the stack's database. */
  databaseUri: string;
}

/**
 * The stack's MongoDB-wire database: MONGODB_URI when set; else FerretDB on SQLite files in the state directory, or
 * on the PostgreSQL that STACK_FERRETDB_POSTGRESQL_URL names (`none`: SQLite), as `npm run load` asks for when the
 * machine's PostgreSQL is its default (docs/development.md, "Load tests"). A PostgreSQL that does not answer, or that
 * FerretDB cannot use, leaves the stack on SQLite.
 */
export async function openStackDatabase(
  env: NodeJS.ProcessEnv,
  localDir: string,
  log: (message: string) => void,
): Promise<StackDatabase> {
  const dataDir = join(localDir, 'ferretdb');
  const configured = env.STACK_FERRETDB_POSTGRESQL_URL;
  const postgresqlUrl = configured && configured !== 'none' ? configured : undefined;
  const mongo = postgresqlUrl
    ? await ensureMongoPreferringPostgresql({ env, log, dataDir, postgresqlUrl, startTimeoutMs: POSTGRESQL_START_MS })
    : await ensureMongo({ env, log, dataDir });
  const database = mongo.backend === 'postgresql' ? postgresqlDatabase(dataDir) : 'gateway';
  return { ...mongo, databaseUri: withDefaultDatabase(mongo.uri, database) };
}

/**
 * On PostgreSQL the stack's data is a schema of that server, not files of the state directory: its name is drawn
 * once and kept in the state directory, so the stack finds its data again, and a fresh state directory (new
 * secrets) starts on an empty database rather than on records encrypted with keys it no longer has.
 */
function postgresqlDatabase(dataDir: string): string {
  const file = join(dataDir, 'postgresql-database');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const database = `gateway_${randomBytes(6).toString('hex')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${database}\n`);
  return database;
}

/** MONGODB_URI may name its database; a bare server URI gets the default one. */
function withDefaultDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  if (url.pathname === '' || url.pathname === '/') url.pathname = `/${database}`;
  return url.toString();
}
