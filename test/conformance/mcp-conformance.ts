/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, pinned: 0.1.13 is the last release that
 * runs on Node 20) against a real mcp-server: NATS and a MongoDB-wire server (found or started), the gateway
 * cluster, a seeded key, and an mcp-server configured for this run only. The suite's client sends no token, so
 * that instance has MCP_ANONYMOUS_KEY set, which the server accepts only with NODE_ENV=test (the cluster's).
 *
 *   bash test/conformance/run-mcp-conformance.sh [scenario ...]
 */
import {
  GatewayFixtures,
  ensureMongo,
  ensureNats,
  startGatewayCluster,
  uniqueDatabaseUri,
  type GatewayCluster,
} from '@gateway/testing';
import { spawn } from 'node:child_process';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.13';
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const log = (message: string) => process.stderr.write(`[conformance] ${message}\n`);

function runScenario(url: string, scenario: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['-y', CONFORMANCE, 'server', '--url', url, '--scenario', scenario], {
      stdio: 'inherit',
      env: process.env,
    });
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(1));
  });
}

async function main(): Promise<number> {
  const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SCENARIOS;
  const nats = await ensureNats({ log });
  const mongo = await ensureMongo({ log }).catch(async (error: unknown) => {
    await nats.stop();
    throw error;
  });
  const mongoUri = uniqueDatabaseUri(mongo.uri, 'conformance');
  let cluster: GatewayCluster | undefined;
  let fixtures: GatewayFixtures | undefined;
  try {
    log('starting the gateway cluster');
    cluster = await startGatewayCluster({ mongoUri, natsUrl: nats.url, edges: 0, actors: 1 });
    fixtures = await GatewayFixtures.open(cluster, mongoUri, nats.url);
    // Every HTTP request of the suite costs one rate unit: a rate that never limits it.
    await fixtures.setPlan('trial', { rate_limit_rps: 1000, rate_burst: 1000 });
    const customer = await fixtures.customer('trial');
    const connection = await fixtures.videoAdsConnection(customer.customer_id);
    const { secret } = await fixtures.key({ customerId: customer.customer_id, accountIds: [connection.accountId] });
    const mcp = await cluster.startMcp({ MCP_ANONYMOUS_KEY: secret });
    // A loopback URL: the dns-rebinding-protection scenario only applies to localhost servers.
    const url = `${mcp.url}/mcp`;
    log(`mcp-server at ${url}; scenarios: ${scenarios.join(', ')}`);

    const results: [string, number][] = [];
    for (const scenario of scenarios) results.push([scenario, await runScenario(url, scenario)]);
    log('summary:');
    for (const [scenario, code] of results) log(`  ${code === 0 ? 'PASS' : 'FAIL'} ${scenario}`);
    return results.every(([, code]) => code === 0) ? 0 : 1;
  } finally {
    // The services before the database: a stopping quota-actor writes its usage, which would bring a dropped one back.
    await cluster?.stop().catch(() => undefined);
    await fixtures?.store.connection.dropDatabase().catch(() => undefined);
    await fixtures?.close().catch(() => undefined);
    await mongo.stop();
    await nats.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
