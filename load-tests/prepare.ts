/**
 * Prepares a k6 run of load-tests/hot-path.js against the local stack (`npm start`, or the one run.sh starts):
 * seeds load customers, connections and keys into the stack's database the way GatewayFixtures does (store +
 * KeyLifecycle), and writes the keys to a git-ignored JSON file so that k6 never needs database access.
 *
 *   node --conditions=development --import tsx load-tests/prepare.ts
 *
 * What it seeds (the demo customer is never touched, and no plan is changed):
 *  - LOAD_CUSTOMERS customers `load-many-<i>@load.test` on LOAD_MANY_PLAN (growth: 25 rps, burst 50), each with
 *    two video-ads connections (sandbox business centers 0 and 1), and LOAD_KEYS keys spread over them. Every
 *    other key names both connections, so it must send X-Account-Id (spec 5.1); the rest name one.
 *    Keys are kept between runs (the file is read back and each key checked to be active in this database).
 *  - one customer `load-hot@load.test` on LOAD_HOT_PLAN (trial: 5 rps, burst 10) with one connection, and a
 *    fresh hot key on every run: its bucket starts full (so the share of 429s is predictable) and its monthly
 *    quota (10,000 in block mode on trial) is never used up by repeated runs. The previous hot keys are revoked.
 * Plans are global per database: the load customers use the plans as they are in the database (the stack seeds
 * the documented defaults, libs/store/src/plan.defaults.ts); only missing plans are written, with the defaults.
 * Connections are re-granted at the sandbox on every run, because the sandbox forgets its tokens when it restarts.
 */
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX, DecisionClient, KeyLifecycle } from '@gateway/decisions';
import {
  CredentialCipher,
  DEFAULT_PLANS,
  PLAN_NAMES,
  isPlanName,
  openStore,
  type ConnectionRecord,
  type CustomerRecord,
  type Plan,
  type PlanName,
  type Store,
} from '@gateway/store';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { connect } from 'nats';

const ROOT = resolve(__dirname, '..');

interface StackFile {
  urls: { rest: string; sandbox: string };
  demo: { customer_id: string; email: string };
  /** SUBJECT_PREFIX: the stack's own limiter subjects (absent in stack files of older stacks: the default). */
  infra: { nats: string; mongodb: string; SUBJECT_PREFIX?: string };
}

interface LocalSecrets {
  credentialsKeys: string;
  credentialsActiveKeyId: string;
  videoAdsAppId: string;
}

/** One key as k6 uses it. account_id is set only when the key has several connections (X-Account-Id needed). */
export interface LoadKey {
  key: string;
  key_id: string;
  customer_id: string;
  account_id?: string;
  advertiser_ids: string[];
}

export interface LoadKeysFile {
  generated_at: string;
  base_url: string;
  hot: { plan: PlanName; rate_limit_rps: number; rate_burst: number; key: LoadKey };
  many: { plan: PlanName; rate_limit_rps: number; rate_burst: number; keys: LoadKey[] };
}

interface Settings {
  stackFile: string;
  secretsFile: string;
  keysFile: string;
  keys: number;
  customers: number;
  manyPlan: PlanName;
  hotPlan: PlanName;
  partitions: number;
}

function settingsFromEnv(env: NodeJS.ProcessEnv): Settings {
  const planOf = (name: string, fallback: PlanName): PlanName => {
    const value = env[name] ?? fallback;
    if (!isPlanName(value)) throw new Error(`${name} must be one of ${PLAN_NAMES.join(', ')}, got "${value}"`);
    return value;
  };
  const positive = (name: string, fallback: number): number => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
    return value;
  };
  const local = join(ROOT, '.local');
  return {
    stackFile: resolve(env.LOAD_STACK_FILE ?? join(local, 'stack.json')),
    secretsFile: resolve(env.LOAD_SECRETS_FILE ?? join(local, 'secrets.json')),
    keysFile: resolve(env.LOAD_KEYS_FILE ?? join(local, 'load-keys.json')),
    keys: positive('LOAD_KEYS', 1000),
    customers: positive('LOAD_CUSTOMERS', 10),
    manyPlan: planOf('LOAD_MANY_PLAN', 'growth'),
    hotPlan: planOf('LOAD_HOT_PLAN', 'trial'),
    // The stack's services take PARTITIONS from the same environment (default of @gateway/decisions).
    partitions: positive('PARTITIONS', DEFAULT_PARTITIONS),
  };
}

const HOT_EMAIL = 'load-hot@load.test';
const manyEmail = (index: number) => `load-many-${index}@load.test`;
/** Sandbox business centers the load connections are granted for (index into /_sandbox/accounts). */
const MANY_BUSINESS_CENTERS = [0, 1];
const HOT_BUSINESS_CENTER = 0;
/** Parallel writes to the database; FerretDB on SQLite gains little beyond this. */
const CONCURRENCY = 4;

interface BusinessCenter {
  bc_id: string;
  advertisers: { advertiser_id: string }[];
}

class Sandbox {
  private centers?: BusinessCenter[];

  constructor(private readonly baseUrl: string) {}

  async businessCenter(index: number): Promise<BusinessCenter> {
    if (!this.centers) {
      const response = await fetch(new URL('/_sandbox/accounts', this.baseUrl));
      if (!response.ok) throw new Error(`sandbox /_sandbox/accounts answered ${response.status}`);
      this.centers = ((await response.json()) as { business_centers: BusinessCenter[] }).business_centers;
    }
    const center = this.centers[index];
    if (!center) throw new Error(`the sandbox has no business center #${index}`);
    return center;
  }

  /** A fresh token for the business center's advertisers (the sandbox's seeding route, as GatewayFixtures). */
  async grant(bcId: string): Promise<{ access_token: string; advertiser_ids: string[] }> {
    const response = await fetch(new URL('/_sandbox/grants', this.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bc_ids: [bcId] }),
    });
    if (response.status !== 201) throw new Error(`sandbox /_sandbox/grants answered ${response.status}`);
    return (await response.json()) as { access_token: string; advertiser_ids: string[] };
  }
}

class Seeder {
  /** New keys whose owner did not acknowledge key_changed in time. */
  unacknowledged = 0;

  constructor(
    readonly store: Store,
    private readonly lifecycle: KeyLifecycle,
    private readonly sandbox: Sandbox,
    private readonly demoCustomerId: string,
  ) {}

  /** The plan's limits as this database has them; missing plans get the documented defaults. */
  async plan(name: PlanName): Promise<Plan> {
    const found = await this.store.plans.findByName(name);
    if (found) return found;
    await this.store.plans.seedDefaultPlans([DEFAULT_PLANS[name]]);
    return (await this.store.plans.findByName(name))!;
  }

  async customer(email: string, name: string, plan: PlanName): Promise<CustomerRecord> {
    const existing = await this.store.customers.findByEmail(email);
    const customer = existing ?? (await this.store.customers.create({ name, email, plan }));
    if (customer.customer_id === this.demoCustomerId) throw new Error(`${email} is the demo customer`);
    if (customer.plan === plan) return customer;
    return (await this.store.customers.setPlan(customer.customer_id, plan))!;
  }

  /** The customer's connection for the business center, re-granted with a fresh sandbox token. */
  async connection(customerId: string, bcIndex: number, existing: ConnectionRecord[]): Promise<ConnectionRecord> {
    const center = await this.sandbox.businessCenter(bcIndex);
    const grant = await this.sandbox.grant(center.bc_id);
    const wanted = [...grant.advertiser_ids].sort().join(',');
    const match = existing.find(
      (connection) =>
        connection.provider === 'video-ads' && [...connection.external_account_ids].sort().join(',') === wanted,
    );
    const credentials = { access_token: grant.access_token };
    const connection = match
      ? await this.store.connections.regrant(match.account_id, credentials, grant.advertiser_ids)
      : await this.store.connections.create({
          customer_id: customerId,
          provider: 'video-ads',
          external_account_ids: grant.advertiser_ids,
          credentials,
        });
    if (!connection) throw new Error(`connection ${match?.account_id} vanished while re-granting it`);
    return connection;
  }

  /** Active key ids per customer, to decide which keys of the previous file can be used again. */
  async activeKeyIds(customerId: string): Promise<Set<string>> {
    const keys = await this.store.apiKeys.listByCustomer(customerId);
    return new Set(keys.filter((key) => key.status === 'active').map((key) => key.key_id));
  }

  async createKey(customerId: string, name: string, connections: ConnectionRecord[]): Promise<LoadKey> {
    const { key, secret } = await this.store.apiKeys.create({
      customer_id: customerId,
      name,
      providers: ['video-ads'],
      account_ids: connections.map((connection) => connection.account_id),
    });
    // Clears a cached "unknown key" verdict at the key's owner, so the key works at once. A new secret cannot have
    // one, so an owner too busy to acknowledge in time (KeyLifecycle waits 4 s) costs nothing: count it, go on.
    try {
      await this.lifecycle.created(key);
    } catch {
      this.unacknowledged += 1;
    }
    const first = connections[0]!;
    return {
      key: secret,
      key_id: key.key_id,
      customer_id: customerId,
      ...(connections.length > 1 ? { account_id: first.account_id } : {}),
      advertiser_ids: [...first.external_account_ids],
    };
  }

  async revoke(keyId: string): Promise<void> {
    await this.lifecycle.revoke(keyId);
  }
}

async function pool<T>(count: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) results[index] = await work(index);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return results;
}

function readJson<T>(path: string, what: string): T {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${what}`);
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

function previousKeys(path: string): LoadKeysFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LoadKeysFile;
  } catch {
    return undefined;
  }
}

/**
 * The many keys, interleaved over the customers (k6 takes the first MANY_KEYS of the list, so a prefix of it is
 * spread over every customer and both connection shapes). Keys of the previous file that are still active are
 * kept, also beyond LOAD_KEYS (a smoke run then does not throw away the keys of a full run); missing ones are
 * created. `created` receives every new key at once, so a failed run does not lose their secrets.
 */
async function manyKeys(
  seeder: Seeder,
  settings: Settings,
  previous: LoadKeysFile | undefined,
  created: LoadKey[],
): Promise<LoadKey[]> {
  const perCustomer = Math.ceil(settings.keys / settings.customers);
  const previousKeys = [...(previous?.many.keys ?? []), ...created];
  const byCustomer: LoadKey[][] = [];
  for (let c = 0; c < settings.customers; c++) {
    const customer = await seeder.customer(manyEmail(c), `Load test customer ${c}`, settings.manyPlan);
    const existing = await seeder.store.connections.listByCustomer(customer.customer_id);
    const connections: ConnectionRecord[] = [];
    for (const bcIndex of MANY_BUSINESS_CENTERS) {
      connections.push(await seeder.connection(customer.customer_id, bcIndex, existing));
    }
    const accountIds = new Set(connections.map((connection) => connection.account_id));
    const active = await seeder.activeKeyIds(customer.customer_id);
    const kept = previousKeys.filter(
      (key) =>
        key.customer_id === customer.customer_id &&
        active.has(key.key_id) &&
        (key.account_id === undefined || accountIds.has(key.account_id)),
    );
    // Key i of a customer: even i names both connections (X-Account-Id needed, alternating which one is used),
    // odd i names one of them.
    const fresh = await pool(Math.max(0, perCustomer - kept.length), async (i) => {
      const index = kept.length + i;
      const connection = connections[Math.floor(index / 2) % connections.length]!;
      const named =
        index % 2 === 0 ? [connection, ...connections.filter((other) => other !== connection)] : [connection];
      const key = await seeder.createKey(customer.customer_id, `load key ${c}-${index}`, named);
      created.push(key);
      return key;
    });
    byCustomer.push([...kept, ...fresh]);
  }
  const keys: LoadKey[] = [];
  for (let i = 0; i < Math.max(...byCustomer.map((list) => list.length)); i++) {
    for (const list of byCustomer) if (list[i]) keys.push(list[i]!);
  }
  return keys;
}

function writeKeysFile(path: string, file: LoadKeysFile): void {
  mkdirSync(dirname(path), { recursive: true });
  // Secrets: readable by this user only, like .local/stack.json.
  writeFileSync(path, JSON.stringify(file, null, 2), { mode: 0o600 });
}

export async function prepare(env: NodeJS.ProcessEnv = process.env, log = console.log): Promise<LoadKeysFile> {
  const settings = settingsFromEnv(env);
  const stack = readJson<StackFile>(settings.stackFile, 'start the local stack first (npm start)');
  const secrets = readJson<LocalSecrets>(settings.secretsFile, 'written by the local stack at its first start');
  const health = await fetch(new URL('/healthz', stack.urls.rest)).catch(() => undefined);
  if (!health?.ok) throw new Error(`the stack in ${settings.stackFile} does not answer at ${stack.urls.rest}/healthz`);

  const cipher = CredentialCipher.fromEnv(secrets.credentialsKeys, secrets.credentialsActiveKeyId);
  const store = await openStore(stack.infra.mongodb, { cipher });
  const nc = await connect({ servers: stack.infra.nats });
  try {
    const decisions = new DecisionClient(nc, {
      partitions: settings.partitions,
      subjectPrefix: stack.infra.SUBJECT_PREFIX ?? DEFAULT_SUBJECT_PREFIX,
    });
    const lifecycle = new KeyLifecycle({ apiKeys: store.apiKeys, decisions });
    const seeder = new Seeder(store, lifecycle, new Sandbox(stack.urls.sandbox), stack.demo.customer_id);
    const previous = previousKeys(settings.keysFile);

    const manyPlan = await seeder.plan(settings.manyPlan);
    const hotPlan = await seeder.plan(settings.hotPlan);

    // The hot key first: it is one key, and a failure below can then still save the keys made so far.
    const hotCustomer = await seeder.customer(HOT_EMAIL, 'Load test hot customer', settings.hotPlan);
    const hotConnection = await seeder.connection(
      hotCustomer.customer_id,
      HOT_BUSINESS_CENTER,
      await store.connections.listByCustomer(hotCustomer.customer_id),
    );
    for (const keyId of await seeder.activeKeyIds(hotCustomer.customer_id)) await seeder.revoke(keyId);
    const hot = await seeder.createKey(hotCustomer.customer_id, 'load hot key', [hotConnection]);
    log(`hot key: ${hot.key_id} on plan ${hotPlan.name} (${hotPlan.rate_limit_rps} rps, burst ${hotPlan.rate_burst})`);

    const fileWith = (keys: LoadKey[]): LoadKeysFile => ({
      generated_at: new Date().toISOString(),
      base_url: stack.urls.rest,
      hot: { plan: hotPlan.name, rate_limit_rps: hotPlan.rate_limit_rps, rate_burst: hotPlan.rate_burst, key: hot },
      many: { plan: manyPlan.name, rate_limit_rps: manyPlan.rate_limit_rps, rate_burst: manyPlan.rate_burst, keys },
    });
    const created: LoadKey[] = [];
    let many: LoadKey[];
    try {
      many = await manyKeys(seeder, settings, previous, created);
    } catch (error) {
      // Keep the secrets of the keys made so far: the next run uses them instead of making them again.
      if (created.length > 0) writeKeysFile(settings.keysFile, fileWith([...(previous?.many.keys ?? []), ...created]));
      throw error;
    }
    if (seeder.unacknowledged > 0) {
      log(`${seeder.unacknowledged} new key(s) were not acknowledged by their owner in time (harmless for new keys)`);
    }
    log(
      `many keys: ${many.length} on plan ${manyPlan.name} (${manyPlan.rate_limit_rps} rps, burst ` +
        `${manyPlan.rate_burst}); ${created.length} created, ${many.length - created.length} kept`,
    );

    const file = fileWith(many);
    writeKeysFile(settings.keysFile, file);
    log(`keys written to ${settings.keysFile}`);
    return file;
  } finally {
    await nc.drain();
    await store.close();
  }
}

if (require.main === module) {
  const log = (message: string) => console.log(`[load] ${message}`);
  prepare(process.env, log).catch((error: unknown) => {
    console.error(`[load] prepare failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
