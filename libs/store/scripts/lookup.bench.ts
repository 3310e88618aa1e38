/**
 * Times the per-key limiter's database work on a throwaway database: loadDecisionRecord (what the limiter does
 * on the first sight of a key) and the usage ledger's open + flush of one key (what it does for every key it
 * owns), over BENCH_DOCS keys, connections and usage documents.
 *
 *   node --conditions=development --import tsx libs/store/scripts/lookup.bench.ts
 *
 * Env: MONGODB_URI (default: a FerretDB started from .tools/bin and removed afterwards), BENCH_DOCS (1500),
 * BENCH_SAMPLES (200 per measurement), BENCH_BATCH (50: keys in the batched-flush measurement). FerretDB 1.24 never
 * answers an update command of 100 or more matching statements (its handler/msg_update.go keeps every statement's
 * SQLite cursor open until the command ends, and a database has a pool of 100 connections), so keep it below 99.
 *
 * The documents are written directly in the store's shape (natural keys as `_id`), so seeding takes seconds
 * whatever the lookups cost; each lookup is then checked against what was seeded before it is timed.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  CredentialCipher,
  hashApiKey,
  newAccountId,
  newApiKeySecret,
  newCustomerId,
  newKeyId,
  openStore,
  usageDay,
  usageMonth,
  type Store,
} from '@gateway/store';
import { ensureMongo, uniqueDatabaseUri } from '@gateway/testing';
// The ledger lives with its only user, the quota-actor; the bench times its real queries rather than a copy.
import { UsageLedger, type UsageDelta } from '../../../services/quota-actor/src/limits/usage-ledger';

const DOCS = positiveInteger('BENCH_DOCS', 1500);
const SAMPLES = positiveInteger('BENCH_SAMPLES', 200);
const BATCH = Math.min(positiveInteger('BENCH_BATCH', 50), DOCS);
const KEYS_PER_CUSTOMER = 5;
const WARMUP = 5;

interface SeededKey {
  hash: string;
  key_id: string;
  customer_id: string;
  account_ids: string[];
}

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** Customers with KEYS_PER_CUSTOMER connections and keys each; every key names two of its customer's connections. */
async function seed(store: Store, month: string, nowMs: number): Promise<SeededKey[]> {
  await store.plans.seedDefaultPlans();
  const db = store.connection.db!;
  const cipher = CredentialCipher.fromEnv(`k1:${randomBytes(32).toString('base64')}`, 'k1');
  const at = new Date(nowMs);
  const customers: Record<string, unknown>[] = [];
  const connections: Record<string, unknown>[] = [];
  const keys: Record<string, unknown>[] = [];
  const usage: Record<string, unknown>[] = [];
  const seeded: SeededKey[] = [];
  for (let c = 0; keys.length < DOCS; c += 1) {
    const customerId = newCustomerId();
    customers.push({
      _id: customerId,
      customer_id: customerId,
      name: `bench customer ${c}`,
      email: `bench-${c}@bench.example`,
      password_hash: null,
      plan: (['trial', 'growth', 'business'] as const)[c % 3],
      created_at: at,
      updated_at: at,
    });
    const accountIds: string[] = [];
    for (let i = 0; i < KEYS_PER_CUSTOMER && connections.length < DOCS; i += 1) {
      const accountId = newAccountId();
      accountIds.push(accountId);
      connections.push({
        _id: accountId,
        account_id: accountId,
        customer_id: customerId,
        provider: 'video-ads',
        external_account_ids: [String(7_000_000_000 + connections.length)],
        credentials: cipher.seal({ access_token: randomBytes(16).toString('hex') }, accountId),
        status: 'active',
        granted_at: at,
        created_at: at,
        updated_at: at,
      });
    }
    for (let i = 0; i < KEYS_PER_CUSTOMER && keys.length < DOCS; i += 1) {
      const hash = hashApiKey(newApiKeySecret());
      const keyId = newKeyId();
      const accounts = [accountIds[i % accountIds.length]!, accountIds[(i + 1) % accountIds.length]!];
      keys.push({
        _id: hash,
        key_id: keyId,
        hash,
        name: `bench key ${keys.length}`,
        customer_id: customerId,
        providers: ['video-ads'],
        account_ids: [...new Set(accounts)],
        ip_allowlist: [],
        status: 'active',
        source: 'portal',
        oauth: null,
        replaced_by: null,
        revoked_at: null,
        created_at: at,
        updated_at: at,
      });
      usage.push({
        _id: `${keyId}:${month}`,
        key_id: keyId,
        month,
        used: 10,
        reserved: 10,
        suggestions_used: 0,
        carried_over: 0,
        days: { [usageDay(at)]: 10 },
        epoch: 1,
        created_at: at,
        updated_at: at,
      });
      seeded.push({ hash, key_id: keyId, customer_id: customerId, account_ids: [...new Set(accounts)] });
    }
  }
  await db.collection('customers').insertMany(customers);
  await db.collection('connections').insertMany(connections);
  await db.collection('api_keys').insertMany(keys);
  await db.collection('monthly_usage').insertMany(usage);
  return seeded;
}

interface Timing {
  name: string;
  samples: number[];
}

async function time(name: string, samples: number, run: (i: number) => Promise<void>): Promise<Timing> {
  process.stderr.write(`timing ${name.trim()} (${samples} samples)\n`);
  for (let i = 0; i < Math.min(WARMUP, samples); i += 1) await run(i);
  const out: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const start = performance.now();
    await run(i);
    out.push(performance.now() - start);
  }
  return { name, samples: out };
}

function report(timing: Timing): string {
  const sorted = [...timing.samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
  const cells = [mean, at(0.5), at(0.99), sorted[sorted.length - 1]!].map((ms) => ms.toFixed(1).padStart(8));
  return `${timing.name.padEnd(34)} ${String(sorted.length).padStart(5)} ${cells.join(' ')}`;
}

function pick<T>(items: readonly T[], i: number): T {
  // A fixed stride walks the whole set without repeating neighbours (and without a random seed to report).
  return items[(i * 7919) % items.length]!;
}

async function main(): Promise<void> {
  const mongo = await ensureMongo({ log: (message) => process.stderr.write(`${message}\n`) });
  const uri = uniqueDatabaseUri(mongo.uri, 'lookup_bench');
  let store: Store | undefined;
  try {
    store = await openStore(uri);
    const nowMs = Date.now();
    const month = usageMonth(new Date(nowMs));
    const seedStart = performance.now();
    const keys = await seed(store, month, nowMs);
    const seedMs = performance.now() - seedStart;
    const build = await store.connection.db!.admin().command({ buildInfo: 1 });
    const server = build.ferretdbVersion
      ? `FerretDB ${String(build.ferretdbVersion)}`
      : `MongoDB ${String(build.version)}`;
    console.log(`${server}; ${keys.length} keys, connections and usage documents seeded in ${seedMs.toFixed(0)} ms`);

    // As an owner starting up: the fencing counter above every seeded epoch, then a token of its own.
    const ledger = new UsageLedger(store.connection);
    await ledger.ensureEpochFloor();
    const epoch = await ledger.nextEpoch();
    const decisions = store.decisions;
    const results: Timing[] = [];

    results.push(
      await time('loadDecisionRecord', SAMPLES, async (i) => {
        const key = pick(keys, i);
        const record = await decisions.loadDecisionRecord(key.hash);
        if (record?.key_id !== key.key_id || record.account_ids.join() !== key.account_ids.join()) {
          throw new Error(`loadDecisionRecord returned the wrong record for ${key.key_id}`);
        }
      }),
    );

    const delta = (keyId: string): UsageDelta => ({
      keyId,
      month,
      used: 1,
      suggestions: 0,
      days: { [usageDay(new Date())]: 1 },
    });
    const openTimes: number[] = [];
    const flushTimes: number[] = [];
    results.push(
      await time('usage open + flush (one key)', SAMPLES, async (i) => {
        const key = pick(keys, i + 1);
        const start = performance.now();
        const snapshot = await ledger.open(key.key_id, month, epoch, Date.now());
        const opened = performance.now();
        const fenced = await ledger.flush([delta(key.key_id)], epoch, Date.now(), () => true);
        flushTimes.push(performance.now() - opened);
        openTimes.push(opened - start);
        if (snapshot.used < 10 || fenced.length > 0) throw new Error(`usage of ${key.key_id} was not opened`);
      }),
    );
    // The phases of the measurement above (warm-up runs excluded).
    results.push({ name: '  of which open', samples: openTimes.slice(-SAMPLES) });
    results.push({ name: '  of which flush', samples: flushTimes.slice(-SAMPLES) });

    // The periodic flush writes every owned key in one bulkWrite; keys opened above are owned by `epoch`.
    const opened = Math.max(SAMPLES, WARMUP);
    const owned = [...new Set(Array.from({ length: opened }, (_, i) => pick(keys, i + 1).key_id))];
    const batch = owned.slice(0, BATCH);
    const batchSamples = Math.max(3, Math.ceil(SAMPLES / 20));
    results.push(
      await time(`usage flush (${batch.length} keys, bulkWrite)`, batchSamples, async () => {
        const fenced = await ledger.flush(batch.map(delta), epoch, Date.now(), () => true);
        if (fenced.length > 0) throw new Error(`${fenced.length} keys were fenced`);
      }),
    );

    console.log(
      `${'operation (ms)'.padEnd(34)} ${'n'.padStart(5)} ${['mean', 'p50', 'p99', 'max'].map((h) => h.padStart(8)).join(' ')}`,
    );
    for (const timing of results) console.log(report(timing));
  } finally {
    await store?.connection.dropDatabase().catch(() => undefined);
    await store?.close();
    await mongo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
