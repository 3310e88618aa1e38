import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRequest, testDatabaseUri, testNatsUrl } from './harness';

/** `npm start` as a newcomer runs it: the real entry point, every service up, stack.json written, Ctrl-C stops all. */
describe('local stack', () => {
  let localDir: string;
  /** One database for both runs (a re-run finds the demo customer of the first). */
  let mongoUri: string;
  let stack: ChildProcess;
  let output = '';
  /** The demo of the first run, which the re-run must keep. */
  let firstDemo: { api_key: string; accounts: { provider: string; account_id: string }[] } | undefined;

  beforeAll(() => {
    localDir = mkdtempSync(join(tmpdir(), 'stack-test-'));
    mongoUri = testDatabaseUri('stack');
  });

  afterAll(() => {
    // The stack runs in its own process group: a failed test kills its services too, not just the launcher.
    if (stack?.pid && stack.exitCode === null) process.kill(-stack.pid, 'SIGKILL');
    rmSync(localDir, { recursive: true, force: true });
  });

  /** Runs `npm start`'s entry point in the test's local dir and waits for its banner. */
  const launch = async (): Promise<void> => {
    output = '';
    stack = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/stack/main.ts'], {
      env: {
        ...process.env,
        STACK_PORTS: 'ephemeral',
        STACK_LOCAL_DIR: localDir,
        NATS_URL: testNatsUrl(),
        MONGODB_URI: mongoUri,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    stack.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    stack.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 90_000;
    while (!output.includes('Data gateway is running')) {
      if (Date.now() > deadline || stack.exitCode !== null) throw new Error(`the stack did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('starts every service, writes stack.json with a working demo key, and stops every child on SIGINT', async () => {
    await launch();
    const statePath = join(localDir, 'stack.json');
    expect(existsSync(statePath)).toBe(true);
    const info = JSON.parse(readFileSync(statePath, 'utf8')) as {
      urls: Record<string, string>;
      demo: { api_key: string; account_ids: string[]; accounts: { provider: string; account_id: string }[] };
    };
    expect(info.urls).toEqual(expect.objectContaining({ rest: expect.any(String), sandbox: expect.any(String) }));
    expect(output).toContain(info.demo.api_key);
    // one connection per provider the stack serves, each granted through the sandbox's own flow, on the demo key
    expect(info.demo.accounts).toEqual([
      { provider: 'video-ads', account_id: expect.any(String) },
      { provider: 'video-shop', account_id: expect.any(String) },
      { provider: 'marketplace', account_id: expect.any(String) },
      { provider: 'marketplace-ads', account_id: expect.any(String) },
      { provider: 'marketplace-affiliate', account_id: expect.any(String) },
      { provider: 'search-ads', account_id: expect.any(String) },
    ]);
    expect(new Set(info.demo.account_ids).size).toBe(6);
    expect(info.demo.account_ids).toEqual(info.demo.accounts.map((account) => account.account_id));
    const accountOf = (provider: string) => info.demo.accounts.find((account) => account.provider === provider)!;
    for (const account of info.demo.accounts) expect(output).toContain(account.account_id);

    for (const url of [info.urls.rest!, info.urls.sandbox!]) {
      expect((await rawRequest(url, '/healthz')).status).toBe(200);
    }
    for (const metrics of [
      info.urls.edge_metrics!,
      info.urls.quota_actor_metrics!,
      info.urls.provider_proxy_metrics!,
    ]) {
      const url = new URL(metrics);
      expect((await rawRequest(url.origin, url.pathname)).status).toBe(200);
    }
    const me = await rawRequest(info.urls.rest!, '/v1/me', { headers: { 'X-API-Key': info.demo.api_key } });
    expect(me.json()).toMatchObject({
      // six connections: more than trial's allowance (3), within growth's (15), so the demo customer is on growth
      plan: 'growth',
      accounts: expect.arrayContaining(info.demo.accounts.map((account) => expect.objectContaining(account))),
    });
    const advertisers = await rawRequest(info.urls.rest!, '/v1/video-ads/v1.3/oauth2/advertiser/get/', {
      headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf('video-ads').account_id },
    });
    expect(advertisers.json()).toMatchObject({ code: 0, message: 'OK' });
    const shops = await rawRequest(info.urls.rest!, '/v1/video-shop/authorization/202309/shops', {
      headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf('video-shop').account_id },
    });
    expect({ status: shops.status, body: shops.json() }).toMatchObject({ status: 200, body: { code: 0 } });
    // one sandbox shop granted to each of the three marketplace apps: one call per app
    const marketplaceCalls = [
      ['marketplace', '/v1/marketplace/api/v2/shop/get_shop_info'],
      ['marketplace-ads', '/v1/marketplace-ads/api/v2/ads/get_total_balance'],
      [
        'marketplace-affiliate',
        '/v1/marketplace-affiliate/api/v2/ams/get_performance_data_update_time?marker_type=AmsMarker',
      ],
    ] as const;
    for (const [provider, path] of marketplaceCalls) {
      const answer = await rawRequest(info.urls.rest!, path, {
        headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf(provider).account_id },
      });
      expect({ provider, status: answer.status, body: answer.json() }).toMatchObject({
        provider,
        status: 200,
        body: { error: '' },
      });
    }
    expect(output).toContain('/v1/marketplace/api/v2/shop/get_shop_info');
    // search-ads: an API user of one sandbox org with the stack's own key pair; v5 answers with its Sunset
    const campaigns = await rawRequest(info.urls.rest!, '/v1/search-ads/api/v5/campaigns?limit=5', {
      headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf('search-ads').account_id },
    });
    expect({ status: campaigns.status, sunset: campaigns.headers['sunset'] }).toEqual({
      status: 200,
      sunset: expect.any(String),
    });
    expect(output).toContain('/v1/search-ads/api/v5/campaigns?limit=5');

    firstDemo = info.demo;

    const exited = new Promise<number | null>((resolve) => stack.once('exit', (code) => resolve(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    // every service's listener is closed
    await expect(rawRequest(info.urls.rest!, '/healthz')).rejects.toThrow();
    await expect(rawRequest(info.urls.sandbox!, '/healthz')).rejects.toThrow();
  }, 120_000);
  it('keeps the demo key and every account id on a re-run, re-granting the connections at the restarted sandbox', async () => {
    expect(firstDemo).toBeDefined();
    await launch();
    const info = JSON.parse(readFileSync(join(localDir, 'stack.json'), 'utf8')) as {
      urls: Record<string, string>;
      demo: { api_key: string; accounts: { provider: string; account_id: string }[] };
    };
    expect(info.demo.api_key).toBe(firstDemo!.api_key);
    expect(info.demo.accounts).toEqual(firstDemo!.accounts);
    // the sandbox forgot the first run's tokens: the connections work with the new grants
    const accountOf = (provider: string) => info.demo.accounts.find((account) => account.provider === provider)!;
    const shopInfo = await rawRequest(info.urls.rest!, '/v1/marketplace/api/v2/shop/get_shop_info', {
      headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf('marketplace').account_id },
    });
    expect({ status: shopInfo.status, body: shopInfo.json() }).toMatchObject({ status: 200, body: { error: '' } });
    // the restarted sandbox forgot the search-ads API user: the same account id, re-granted with a new key pair
    const campaigns = await rawRequest(info.urls.rest!, '/v1/search-ads/api/v5/campaigns?limit=5', {
      headers: { 'X-API-Key': info.demo.api_key, 'X-Account-Id': accountOf('search-ads').account_id },
    });
    expect(campaigns.status).toBe(200);

    const exited = new Promise<number | null>((resolve) => stack.once('exit', (code) => resolve(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);
});
