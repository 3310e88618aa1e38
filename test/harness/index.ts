import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { partitionOf } from '@gateway/decisions';
import { hashApiKey } from '@gateway/store';
import {
  startService,
  uniqueDatabaseUri,
  type GatewayCluster,
  type RunningService,
  type StartServiceOptions,
} from '@gateway/testing';
import { JSONCodec, type NatsConnection } from 'nats';

function fromSetup(name: 'TEST_NATS_URL' | 'TEST_MONGODB_URI'): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: integration tests get it from test/global-setup.ts; run them with ` +
        '`npx jest --selectProjects integration <path>`.',
    );
  }
  return value;
}

/** The NATS server (JetStream enabled) global setup found or started. */
export function testNatsUrl(): string {
  return fromSetup('TEST_NATS_URL');
}

/** The MongoDB-wire server global setup found or started, without a database name. */
export function testMongoUri(): string {
  return fromSetup('TEST_MONGODB_URI');
}

/**
 * A database of its own for the calling test file (named after the file unless `prefix` is given), so
 * files running in parallel workers never see each other's documents.
 */
export function testDatabaseUri(prefix?: string): string {
  const testPath = expect.getState().testPath;
  return uniqueDatabaseUri(testMongoUri(), prefix ?? (testPath ? basename(testPath, '.test.ts') : 'test'));
}

/**
 * `<prefix>_<random>` from [A-Za-z0-9_], valid as a NATS subject token, a KV bucket or stream name, so tests
 * sharing one NATS server do not collide.
 */
export function uniqueName(prefix: string): string {
  return `${prefix.replace(/[^A-Za-z0-9_]+/g, '_')}_${randomBytes(5).toString('hex')}`;
}

/**
 * startService() wired to the test infrastructure: NATS_URL is the shared server and MONGODB_URI a database
 * of its own, unless `env` says otherwise. The caller stops it (usually in afterAll).
 */
export function startTestService(
  name: string,
  env: NodeJS.ProcessEnv = {},
  options?: StartServiceOptions,
): Promise<RunningService> {
  return startService(
    name,
    { NATS_URL: testNatsUrl(), MONGODB_URI: testDatabaseUri(name), LOG_LEVEL: 'info', ...env },
    options,
  );
}

export { countFinds } from './find-counter';
export { rawRequest } from './raw-http';
export { startOAuthWithMcp } from './oauth-stack';
export type { RawResponse } from './raw-http';

/**
 * Waits until the live quota-actors own every partition, each its share. A node that joins takes its share a few
 * partitions at a time; owners still moving while a test runs would make what it measures depend on timing.
 */
export async function untilPartitionsSplit(actors: RunningService[], partitions: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const owned = await Promise.all(
      actors.map(
        async (actor) => ((await (await fetch(`${actor.url}/healthz`)).json()) as { partitions: number }).partitions,
      ),
    );
    const total = owned.reduce((sum, count) => sum + count, 0);
    // Each node takes at most its share, ceil(P / nodes) (16 over 3: 6, 6, 4).
    if (total === partitions && Math.max(...owned) <= Math.ceil(partitions / actors.length) && Math.min(...owned) > 0)
      return;
    if (Date.now() > deadline) throw new Error(`the partitions did not split: ${owned.join(' / ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The node id holding the lease of the key's partition (a released lease names its last owner but is free, so it is
 * waited out like a missing one).
 */
export async function partitionOwner(nc: NatsConnection, cluster: GatewayCluster, secret: string): Promise<string> {
  const kv = await nc.jetstream().views.kv(cluster.sharedEnv.LEASE_BUCKET!);
  const partition = partitionOf(hashApiKey(secret), Number(cluster.sharedEnv.PARTITIONS));
  for (let attempt = 0; attempt < 100; attempt++) {
    const entry = await kv.get(`p${partition}`);
    const lease =
      entry?.operation === 'PUT' ? JSONCodec<{ owner: string; released?: unknown }>().decode(entry.value) : null;
    if (lease && !lease.released) return lease.owner;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`partition ${partition} has no owner`);
}
