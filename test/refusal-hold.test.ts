import { GatewayFixtures, parsePrometheusText, startGatewayCluster, type GatewayCluster } from '@gateway/testing';
import { newApiKeySecret } from '@gateway/store';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/**
 * The refusal path (issue 17): a key the quota-actor refused with a hold is refused again by the edge itself,
 * with the same code and headers, without a decision of the actor, until the hold ends or the key changes. The
 * edge only ever refuses, so nothing is admitted that the actor would refuse.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
let edge: string;
const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 1, actors: 1 });
  edge = cluster.edges[0]!.url;
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
  await fixtures.setPlan('trial', { rate_limit_rps: 1, rate_burst: 1, monthly_quota: 1_000, overage_mode: 'block' });
  await fixtures.setPlan('growth', {
    rate_limit_rps: 1_000,
    rate_burst: 1_000,
    monthly_quota: 3,
    overage_mode: 'block',
  });
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

async function keyOn(plan: 'trial' | 'growth') {
  const customer = await fixtures.customer(plan);
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  return fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
}

/** The sum of a counter over all its series on one service's /metrics. */
async function counter(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return parsePrometheusText(text)
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

const actorDecisions = () => counter(cluster.actors[0]!.url, 'gateway_limiter_decisions_total');
const held = (code: string) => counter(edge, 'gateway_edge_held_refusals_total', { code });
const decisionWaits = () => counter(edge, 'gateway_edge_stage_duration_seconds_count', { stage: 'decision' });

describe('held refusals at the edge', () => {
  it('refuses a key over its rate itself until its next unit, with the same code and headers', async () => {
    const { secret } = await keyOn('trial');
    const send = () => rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    const decisionsBefore = await actorDecisions();
    const heldBefore = await held('rate_limited');
    const waitsBefore = await decisionWaits();
    const started = Date.now();
    const answers = [];
    // As fast as one client goes, for a few of the key's 1 s holds.
    while (Date.now() - started < 2_500 || answers.length < 10) answers.push(await send());
    const seconds = (Date.now() - started) / 1000;

    const admitted = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted).toBeLessThanOrEqual(1 + Math.ceil(seconds)); // burst + rps x T: never more
    for (const refusal of refused) {
      expect(refusal.status).toBe(429);
      expect(refusal.json<{ code: string }>().code).toBe('rate_limited');
      expect(Number(refusal.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refusal.headers['ratelimit']).toMatch(/"rate";r=0;t=\d+/);
      expect(refusal.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    }
    // The first refusal is the actor's, the last one held: both written with the same fields.
    const fieldsOf = (answer: Awaited<ReturnType<typeof send>>) => Object.keys(answer.headers).sort();
    expect(fieldsOf(refused.at(-1)!)).toEqual(fieldsOf(refused[0]!));
    // Every request was either decided by the actor or refused by the edge from a hold, and the holds took most.
    const heldNow = (await held('rate_limited')) - heldBefore;
    expect((await actorDecisions()) - decisionsBefore + heldNow).toBe(answers.length);
    expect(heldNow).toBeGreaterThan(0);
    // A held refusal waited on no verdict: the decision stage times only the requests the actor decided.
    expect((await decisionWaits()) - waitsBefore).toBe(answers.length - heldNow);
  });

  it('keeps the rate per key (spec 8): another key of the same customer is admitted while one is held', async () => {
    const customer = await fixtures.customer('trial');
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const [first, second] = await Promise.all(
      [0, 1].map(() => fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] })),
    );
    const send = (secret: string) => rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    let code = '';
    // 1 request per second, burst 1: the first key is over its rate by the second request (or a later one, on a
    // machine slow enough to refill the bucket in between).
    for (let i = 0; i < 20 && code !== 'rate_limited'; i++) {
      const answer = await send(first!.secret);
      code = answer.status === 200 ? 'ok' : answer.json<{ code: string }>().code;
    }
    expect(code).toBe('rate_limited');
    expect((await send(second!.secret)).status).toBe(200);
  });

  it('refuses a used-up block quota itself, and a revoke ends the hold at once: 401, not a held 429', async () => {
    const { secret, key } = await keyOn('growth');
    const send = () => rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': secret } });
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
    const first = await send();
    expect(first.json<{ code: string }>().code).toBe('quota_exceeded');
    const heldBefore = await held('quota_exceeded');
    for (let i = 0; i < 10; i++) {
      const refusal = await send();
      expect(refusal.status).toBe(429);
      expect(refusal.json<{ code: string }>().code).toBe('quota_exceeded');
      expect(refusal.headers['ratelimit']).toMatch(/"monthly";r=0;/);
    }
    expect((await held('quota_exceeded')) - heldBefore).toBe(10);
    // /v1/me is not a forward: it still reaches the actor and is answered.
    expect((await rawRequest(edge, '/v1/me', { headers: { 'X-API-Key': secret } })).status).toBe(200);

    await fixtures.lifecycle.revoke(key.key_id);
    const revoked = await send();
    expect(revoked.status).toBe(401);
    expect(revoked.json<{ code: string }>().code).toBe('key_revoked');
  });

  it('refuses an unknown key itself for the actor’s negative-cache time', async () => {
    const unknown = newApiKeySecret(); // well formed, never stored
    const send = () => rawRequest(edge, ADVERTISERS, { headers: { 'X-API-Key': unknown } });
    const first = await send();
    expect(first.status).toBe(401);
    expect(first.json<{ code: string }>().code).toBe('invalid_api_key');
    const heldBefore = await held('invalid_api_key');
    for (let i = 0; i < 5; i++) expect((await send()).json<{ code: string }>().code).toBe('invalid_api_key');
    expect((await held('invalid_api_key')) - heldBefore).toBe(5);
  });
});
