import {
  batchCodec,
  DecisionClient,
  nodeBatchCodec,
  partitionOf,
  type DecisionBatch,
  type DecisionRequest,
  type Verdict,
} from '@gateway/decisions';
import { hashApiKey } from '@gateway/store';
import { GatewayFixtures, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { testDatabaseUri, testNatsUrl, untilPartitionsSplit } from './harness';

/**
 * Decisions go to the owning node in one message per event-loop turn once an answer named the owner, and fall back
 * to the partition subjects when that node is gone, without losing or double-counting a decision.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let nc: NatsConnection;
let client: DecisionClient;
let spy: { node: number; partition: number; batches: DecisionBatch[]; subscriptions: Subscription[] };
const RETRY_BUDGET_MS = 5_000;
let hashes: string[];
const KEYS = 24;

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 0 });
  await cluster.startActor({ NODE_ID: 'router-a' });
  await cluster.startActor({ NODE_ID: 'router.b' }); // a dot: node ids become one subject token
  await untilPartitionsSplit(cluster.actors, Number(cluster.sharedEnv.PARTITIONS));
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  const customer = await fixtures.customer('business');
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  hashes = [];
  for (let i = 0; i < KEYS; i++) {
    const key = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
    hashes.push(hashApiKey(key.secret));
  }
  nc = await connect({ servers: testNatsUrl() });
  const prefix = cluster.sharedEnv.SUBJECT_PREFIX!;
  spy = { node: 0, partition: 0, batches: [], subscriptions: [] };
  spy.subscriptions.push(
    nc.subscribe(`${prefix}.node.*.decide`, {
      callback: (_error, message) => {
        spy.node++;
        spy.batches.push(...nodeBatchCodec.decode(message.data).parts.map((part) => part.batch));
      },
    }),
  );
  spy.subscriptions.push(
    nc.subscribe(`${prefix}.*.decide`, {
      callback: (_error, message) => {
        spy.partition++;
        spy.batches.push(batchCodec.decode(message.data));
      },
    }),
  );
  await nc.flush();
  client = new DecisionClient(nc, {
    partitions: Number(cluster.sharedEnv.PARTITIONS),
    subjectPrefix: prefix,
    retryBudgetMs: RETRY_BUDGET_MS,
  });
}, 120_000);

afterAll(async () => {
  await nc?.drain();
  await fixtures?.close();
  await cluster?.stop();
});

function forward(keyHash: string): DecisionRequest {
  return { keyHash, ip: '127.0.0.1', intent: 'forward', provider: 'video-ads', pathAllowed: true };
}

/** Every key once, all in one event-loop turn. */
async function turn(): Promise<Verdict[]> {
  return Promise.all(hashes.map((hash) => client.decide(forward(hash))));
}

async function quotaUsed(hash: string): Promise<number> {
  const verdict = await client.decide({ keyHash: hash, ip: '127.0.0.1', intent: 'describe' });
  if (!verdict.ok || !verdict.description) throw new Error(`describe refused: ${JSON.stringify(verdict)}`);
  return verdict.description.quota_used;
}

it('sends a turn to each owning node in one message once the owners are known', async () => {
  const partitions = new Set(hashes.map((hash) => partitionOf(hash, Number(cluster.sharedEnv.PARTITIONS))));
  expect(partitions.size).toBeGreaterThan(4);

  const first = await turn();
  expect(first.every((verdict) => verdict.ok)).toBe(true);
  // Owners unknown: one message per partition.
  expect(spy.node).toBe(0);
  expect(spy.partition).toBe(partitions.size);

  spy.node = 0;
  spy.partition = 0;
  const second = await turn();
  expect(second.every((verdict) => verdict.ok)).toBe(true);
  // At most one message per node; a node with a single partition in the turn is asked on that partition's subject.
  expect(spy.node).toBeGreaterThanOrEqual(1);
  expect(spy.node).toBeLessThanOrEqual(2);
  expect(spy.node + spy.partition).toBeLessThan(partitions.size);
});

it('tells the owner how long each batch may still be repeated (what is left of the retry budget)', async () => {
  spy.batches = [];
  await turn();
  expect(spy.batches.length).toBeGreaterThan(0);
  for (const batch of spy.batches) {
    expect(batch.batchId).toBeDefined();
    // Sent at once in this turn: nearly all of the budget is left, and never more.
    expect(batch.retryForMs).toBeLessThanOrEqual(RETRY_BUDGET_MS);
    expect(batch.retryForMs).toBeGreaterThan(RETRY_BUDGET_MS - 1_000);
  }
});

it('falls back to the partition subjects when the owning node is gone, counting every decision once', async () => {
  await turn();
  const [a] = cluster.actors;
  await a!.stop('SIGTERM');
  // The client still believes a holds its partitions: those parts find the new owner through the partition subjects.
  const after = await turn();
  expect(after.every((verdict) => verdict.ok)).toBe(true);
  // quota_used is the customer's month: 5 forwards of each of its keys, each counted once, whichever key asks.
  for (const hash of hashes) expect(await quotaUsed(hash)).toBe(5 * KEYS);
});
