import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { GatewayFixtures, startGatewayCluster, waitUntil, type GatewayCluster } from '@gateway/testing';
import { testDatabaseUri, testNatsUrl } from './harness';

/**
 * edge-auth at SIGTERM: new connections are refused at once, a request on a connection the client already had is
 * still answered (through the actor and provider-proxy), with Connection: close, and the process then exits 0.
 * Before, every idle kept-alive connection was closed at once and such a request was reset unread.
 */
let cluster: GatewayCluster;
let fixtures: GatewayFixtures;
const ADVERTISERS = '/v1/video-ads/v1.3/oauth2/advertiser/get/';

beforeAll(async () => {
  const mongoUri = testDatabaseUri();
  cluster = await startGatewayCluster({ mongoUri, natsUrl: testNatsUrl(), edges: 0, actors: 1 });
  fixtures = await GatewayFixtures.open(cluster, mongoUri, testNatsUrl());
}, 120_000);

afterAll(async () => {
  await fixtures?.close();
  await cluster?.stop();
});

function get(
  url: string,
  path: string,
  headers: Record<string, string>,
  agent: Agent,
): Promise<{ status: number; headers: IncomingHttpHeaders; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

it('answers a request on an open kept-alive connection after SIGTERM, with Connection: close, then exits 0', async () => {
  const edge = await cluster.startEdge();
  const customer = await fixtures.customer('growth');
  const connection = await fixtures.videoAdsConnection(customer.customer_id);
  const { secret } = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
  const headers = { 'X-API-Key': secret, 'X-Account-Id': connection.accountId };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const before = await get(edge.url, ADVERTISERS, headers, agent);
    expect(before.status).toBe(200);
    expect(before.headers.connection).toBe('keep-alive');

    const exited = edge.process.exitCode === null ? new Promise((resolve) => edge.process.once('exit', resolve)) : null;
    edge.process.kill('SIGTERM');
    await waitUntil(() => refusesConnections(edge.url), {
      timeoutMs: 5_000,
      intervalMs: 20,
      onTimeout: () => new Error('edge-auth still accepts connections after SIGTERM'),
    });

    const during = await get(edge.url, ADVERTISERS, headers, agent);
    expect(during).toMatchObject({ status: 200, reusedSocket: true });
    expect(during.headers.connection).toBe('close');
    expect(await exited).toBe(0);
  } finally {
    agent.destroy();
    await edge.stop();
  }
}, 60_000);
