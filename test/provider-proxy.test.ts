import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  callBuffered,
  StreamProviderCaller,
  UnaryProviderCaller,
  type BufferedAnswer,
  type FetchRequest,
  type ProviderCaller,
} from '@gateway/proto';
import { CredentialCipher, openStore, type Store } from '@gateway/store';
import { closedPort, startService, type RunningService } from '@gateway/testing';
import { testDatabaseUri } from './harness';

jest.setTimeout(120_000);

const APP_ID = '7300000000000000123';
const APP_SECRET = `it-app-secret-${randomBytes(12).toString('hex')}`;
const KEY_ID = 'k1';
const KEYRING = CredentialCipher.generateKeyringEntry(KEY_ID);
// The sandbox's fixed world (services/platform-sandbox/src/accounts/sandbox-accounts.ts).
const NORTHWIND_BC = '7182654093817356289';
const NORTHWIND_US = '7291830415526379521';
const PIXEL_PANTRY = '7352219084467503105';

const REPORT_PATH = '/v1.3/report/integrated/get/';
/** AUCTION_AD x stat_time_day over 30 days: more than 3000 rows, several pages of 1000. */
const AD_BY_DAY =
  `advertiser_id=${NORTHWIND_US}&report_type=BASIC&data_level=AUCTION_AD` +
  '&dimensions=["ad_id","stat_time_day"]&metrics=%5B%22spend%22%2C%22impressions%22%2C%22clicks%22%5D' +
  '&start_date=2026-10-01&end_date=2026-10-30&page_size=1000';

interface Proxy {
  service: RunningService;
  unary: ProviderCaller;
  stream: ProviderCaller;
}

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | undefined>;
}

/** Every line every provider-proxy printed: no secret may ever be among them (f). */
const proxyOutput: string[] = [];
/** Values that must never reach the proxy's output: the app secret, platform tokens, caller-supplied tokens. */
const secrets: string[] = [APP_SECRET];

describe('provider-proxy against the platform sandbox', () => {
  let store: Store;
  let customerId: string;
  let sandbox: RunningService;
  /** A sandbox whose app allows only 3 requests per second. */
  let slowSandbox: RunningService;
  let blackHole: Server;
  const blackHoleSockets = new Set<Socket>();
  let proxy: Proxy;
  /** Guard at the slow sandbox's rate. */
  let guarded: Proxy;
  /** Guard far above the slow sandbox's rate. */
  let unguarded: Proxy;
  let toBlackHole: Proxy;
  let toClosedPort: Proxy;
  let token: string;
  let accountId: string;
  let slowToken: string;
  let slowAccountId: string;
  let dbUri: string;
  const running: RunningService[] = [];

  async function startProxy(env: NodeJS.ProcessEnv): Promise<Proxy> {
    const service = await startService(
      'provider-proxy',
      {
        GRPC_PORT: '0',
        HTTP_PORT: '0',
        MONGODB_URI: dbUri,
        CREDENTIALS_ENCRYPTION_KEYS: KEYRING,
        CREDENTIALS_ACTIVE_KEY_ID: KEY_ID,
        VIDEO_ADS_APP_ID: APP_ID,
        VIDEO_ADS_APP_SECRET: APP_SECRET,
        CREDENTIAL_CACHE_TTL_MS: '600000',
        // The most talkative level, so the check that nothing secret is printed has the most to read.
        LOG_LEVEL: 'trace',
        ...env,
      },
      { listeners: ['grpc', 'http'], timeoutMs: 60_000, onLine: (line) => proxyOutput.push(line) },
    );
    running.push(service);
    const address = service.urls.grpc!.replace('grpc://', '');
    return { service, unary: new UnaryProviderCaller(address), stream: new StreamProviderCaller(address) };
  }

  beforeAll(async () => {
    dbUri = testDatabaseUri('provider_proxy');
    blackHole = createServer((socket) => {
      // Accepts and never answers: the platform hangs.
      blackHoleSockets.add(socket);
      socket.on('close', () => blackHoleSockets.delete(socket));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const refusingPort = await closedPort();

    const sandboxEnv = { SANDBOX_APP_ID: APP_ID, SANDBOX_APP_SECRET: APP_SECRET, LOG_LEVEL: 'info' };
    [sandbox, slowSandbox] = await Promise.all([
      startService('platform-sandbox', { ...sandboxEnv, SANDBOX_APP_QPS: '0' }, { timeoutMs: 60_000 }),
      startService('platform-sandbox', { ...sandboxEnv, SANDBOX_APP_QPS: '3' }, { timeoutMs: 60_000 }),
    ]);
    running.push(sandbox, slowSandbox);

    store = await openStore(dbUri, { cipher: CredentialCipher.fromEnv(KEYRING, KEY_ID) });
    await store.plans.seedDefaultPlans();
    customerId = (await store.customers.create({ name: 'Proxy IT', email: 'proxy-it@acme.example', plan: 'trial' }))
      .customer_id;
    token = await mint(sandbox, [NORTHWIND_BC]);
    accountId = await connect(token);
    slowToken = await mint(slowSandbox, [NORTHWIND_BC]);
    slowAccountId = await connect(slowToken);

    [proxy, guarded, unguarded, toBlackHole, toClosedPort] = await Promise.all([
      startProxy({ VIDEO_ADS_BASE_URL: sandbox.url, VIDEO_ADS_APP_QPS: '0' }),
      startProxy({ VIDEO_ADS_BASE_URL: slowSandbox.url, VIDEO_ADS_APP_QPS: '3', QPS_MAX_WAIT_MS: '10000' }),
      startProxy({ VIDEO_ADS_BASE_URL: slowSandbox.url, VIDEO_ADS_APP_QPS: '50' }),
      startProxy({ VIDEO_ADS_BASE_URL: `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}` }),
      startProxy({ VIDEO_ADS_BASE_URL: `http://127.0.0.1:${refusingPort}` }),
    ]);
  });

  afterAll(async () => {
    for (const caller of [proxy, guarded, unguarded, toBlackHole, toClosedPort]) {
      caller?.unary.close();
      caller?.stream.close();
    }
    await Promise.all(running.map((service) => service.stop()));
    for (const socket of blackHoleSockets) socket.destroy();
    blackHole?.close();
    await store?.connection.dropDatabase().catch(() => undefined);
    await store?.close();
  });

  async function mint(target: RunningService, bcIds: string[]): Promise<string> {
    const response = await fetch(`${target.url}/_sandbox/grants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bc_ids: bcIds }),
    });
    expect(response.status).toBe(201);
    const minted = (await response.json()) as { access_token: string };
    secrets.push(minted.access_token);
    return minted.access_token;
  }

  async function connect(accessToken: string): Promise<string> {
    const record = await store.connections.create({
      customer_id: customerId,
      provider: 'video-ads',
      external_account_ids: [NORTHWIND_US],
      credentials: { access_token: accessToken },
    });
    return record.account_id;
  }

  async function requestLog(
    target: RunningService,
    since: number,
  ): Promise<{ requests: LoggedRequest[]; last_seq: number }> {
    const response = await fetch(`${target.url}/_sandbox/requests?since=${since}`);
    return (await response.json()) as { requests: LoggedRequest[]; last_seq: number };
  }

  async function lastSeq(target: RunningService): Promise<number> {
    return (await requestLog(target, Number.MAX_SAFE_INTEGER)).last_seq;
  }

  /** The sandbox answer to the same request made directly, with the exact same request-target bytes. */
  function direct(target: RunningService, path: string, query: string, accessToken: string): Promise<Answer> {
    const url = new URL(target.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `/open_api${path}${query ? `?${query}` : ''}`,
          headers: { 'access-token': accessToken },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? '',
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function call(caller: ProviderCaller, request: FetchRequest): Promise<BufferedAnswer> {
    return callBuffered(caller, { provider: 'video-ads', account_id: accountId, timeout_ms: 20_000, ...request });
  }

  /** Both transports for one request: the unary Fetch and the multiplexed Exchange. */
  async function both(target: Proxy, request: FetchRequest): Promise<Answer[]> {
    const answers = await Promise.all([call(target.unary, request), call(target.stream, request)]);
    return answers.map((answer) => {
      expect(answer.failure).toBeUndefined();
      return { status: answer.head!.status, contentType: answer.head!.contentType, body: answer.body };
    });
  }

  function envelope(answer: Answer): { code: number; message: string; data: Record<string, unknown> } {
    return JSON.parse(answer.body.toString('utf8')) as { code: number; message: string; data: Record<string, unknown> };
  }

  /** The bytes with the request_id value (random per answer) masked; everything else must match exactly. */
  function masked(answer: Answer): { status: number; contentType: string; body: string } {
    return {
      status: answer.status,
      contentType: answer.contentType,
      body: answer.body.toString('utf8').replace(/"request_id":"\d+"/, '"request_id":"<id>"'),
    };
  }

  describe('(a) the eight endpoints', () => {
    let storeId: string;

    beforeAll(async () => {
      const stores = envelope(
        await direct(sandbox, '/v1.3/gmv_max/store/list/', `advertiser_id=${NORTHWIND_US}`, token),
      );
      storeId = (stores.data.store_list as { store_id: string }[])[0]!.store_id;
    });

    const endpoints: [string, () => string][] = [
      ['/v1.3/oauth2/advertiser/get/', () => ''],
      ['/v1.3/advertiser/info/', () => `advertiser_ids=["${NORTHWIND_US}"]&fields=["name","currency","timezone"]`],
      [REPORT_PATH, () => AD_BY_DAY],
      ['/v1.3/campaign/get/', () => `advertiser_id=${NORTHWIND_US}&page_size=5`],
      ['/v1.3/adgroup/get/', () => `advertiser_id=${NORTHWIND_US}&page=2&page_size=3`],
      ['/v1.3/ad/get/', () => `advertiser_id=${NORTHWIND_US}&filtering={"primary_status":"STATUS_ALL"}`],
      ['/v1.3/gmv_max/store/list/', () => `advertiser_id=${NORTHWIND_US}`],
      [
        '/v1.3/gmv_max/report/get/',
        () =>
          `advertiser_id=${NORTHWIND_US}&store_ids=["${storeId}"]&metrics=["cost","orders","gross_revenue"]` +
          '&dimensions=["stat_time_day"]&start_date=2026-10-01&end_date=2026-10-07',
      ],
    ];

    it.each(endpoints)('returns the sandbox data of %s through Fetch and Exchange', async (path, query) => {
      const answers = await both(proxy, { path, query: query() });
      // The direct call carries the app credentials where the proxy adds them.
      const directQuery = path === '/v1.3/oauth2/advertiser/get/' ? `app_id=${APP_ID}&secret=${APP_SECRET}` : query();
      const expected = masked(await direct(sandbox, path, directQuery, token));
      for (const answer of answers) {
        expect(envelope(answer)).toMatchObject({ code: 0, message: 'OK' });
        expect(masked(answer)).toEqual(expected);
      }
    });

    it('pages a multi-page AUCTION_AD x stat_time_day report to its last page, with JSON-string arrays', async () => {
      const since = await lastSeq(sandbox);
      const [first] = await both(proxy, { path: REPORT_PATH, query: `${AD_BY_DAY}&page=1` });
      const pageInfo = envelope(first!).data.page_info as { total_page: number; total_number: number };
      expect(pageInfo.total_page).toBeGreaterThanOrEqual(4);

      // Every page at once on the multiplexed stream, the last one through Fetch as well.
      const pages = await Promise.all(
        Array.from({ length: pageInfo.total_page }, (_, i) =>
          call(proxy.stream, { path: REPORT_PATH, query: `${AD_BY_DAY}&page=${i + 1}` }),
        ),
      );
      const rows = pages.flatMap((page) => {
        expect(page.failure).toBeUndefined();
        return (JSON.parse(page.body.toString()) as { data: { list: unknown[] } }).data.list;
      });
      expect(rows).toHaveLength(pageInfo.total_number);
      const lastQuery = `${AD_BY_DAY}&page=${pageInfo.total_page}`;
      const last = await call(proxy.unary, { path: REPORT_PATH, query: lastQuery });
      const lastPage = JSON.parse(last.body.toString()) as { data: { list: unknown[]; page_info: { page: number } } };
      expect(lastPage.data.page_info.page).toBe(pageInfo.total_page);
      expect(lastPage.data.list.length).toBe(pageInfo.total_number - 1000 * (pageInfo.total_page - 1));
      const bodyOf = (body: Buffer) => masked({ status: 200, contentType: '', body }).body;
      expect(bodyOf(last.body)).toBe(bodyOf(pages.at(-1)!.body));

      // The JSON-string arrays reached the platform as one parameter each, byte for byte.
      const { requests } = await requestLog(sandbox, since);
      const lastSeen = requests.filter((entry) => entry.query === lastQuery);
      expect(lastSeen.length).toBeGreaterThanOrEqual(2);
      expect(requests.every((entry) => entry.path === '/open_api/v1.3/report/integrated/get/')).toBe(true);
    });
  });

  describe('(b) credentials', () => {
    const CALLER_CREDENTIALS = [
      'access_token=caller-at-1',
      'ACCESS_TOKEN=caller-at-2',
      'Access_Token=caller-at-3',
      'access%5Ftoken=caller-at-4',
      'access%5ftoken=caller-at-5',
      'access_token[]=caller-at-6',
      'app_id=999',
      'APP_ID=998',
      'app%5Fid=997',
      'secret=caller-secret-1',
      'SECRET=caller-secret-2',
      'secr%65t=caller-secret-3',
    ];

    beforeAll(() => {
      secrets.push(
        ...CALLER_CREDENTIALS.map((pair) => pair.split('=')[1]!).filter((value) => value.startsWith('caller')),
      );
    });

    it('never lets caller-supplied app_id, secret or access_token reach the platform', async () => {
      const since = await lastSeq(sandbox);
      const interleaved = (query: string) =>
        [CALLER_CREDENTIALS.slice(0, 6).join('&'), query, CALLER_CREDENTIALS.slice(6).join('&')].join('&');
      const tokenAnswers = await both(proxy, {
        path: '/v1.3/campaign/get/',
        query: interleaved(`advertiser_id=${NORTHWIND_US}&page_size=2`),
      });
      const appAnswers = await both(proxy, { path: '/v1.3/oauth2/advertiser/get/', query: interleaved('') });
      for (const answer of [...tokenAnswers, ...appAnswers]) expect(envelope(answer).code).toBe(0);

      const { requests } = await requestLog(sandbox, since);
      expect(requests).toHaveLength(4);
      for (const entry of requests) {
        expect(entry.headers['access-token']).toBe(token);
        expect(JSON.stringify(entry)).not.toMatch(/caller-|=99[789]/);
        if (entry.path === '/open_api/v1.3/campaign/get/') {
          expect(entry.query).toBe(`advertiser_id=${NORTHWIND_US}&page_size=2`);
        } else {
          expect(entry.path).toBe('/open_api/v1.3/oauth2/advertiser/get/');
          expect(entry.query).toBe(`app_id=${APP_ID}&secret=${APP_SECRET}`);
        }
      }
    });
  });

  describe('(c) platform errors come back in the platform envelope, unchanged', () => {
    it.each([
      ['a report span over 30 days', REPORT_PATH, AD_BY_DAY.replace('end_date=2026-10-30', 'end_date=2026-10-31')],
      ['a missing advertiser_id', '/v1.3/campaign/get/', 'page_size=10'],
      ['an unknown metric', REPORT_PATH, AD_BY_DAY.replace('%22clicks%22', '%22nope%22')],
      ['a malformed JSON array', '/v1.3/advertiser/info/', 'advertiser_ids=[1,'],
      ['an advertiser outside the grant (40001)', '/v1.3/campaign/get/', `advertiser_id=${PIXEL_PANTRY}`],
    ])('passes %s through byte for byte', async (_what, path, query) => {
      const expected = masked(await direct(sandbox, path, query, token));
      expect(JSON.parse(expected.body).code).not.toBe(0);
      for (const answer of await both(proxy, { path, query })) expect(masked(answer)).toEqual(expected);
    });

    async function revokeAtPlatform(accessToken: string): Promise<void> {
      const revoke = await fetch(`${sandbox.url}/_sandbox/tokens/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: accessToken }),
      });
      expect(revoke.status).toBe(200);
    }

    it('answers connection_needs_regrant, never 40105, after the grant is revoked at the platform', async () => {
      const revokedToken = await mint(sandbox, [NORTHWIND_BC]);
      const request = {
        account_id: await connect(revokedToken),
        path: '/v1.3/campaign/get/',
        query: `advertiser_id=${NORTHWIND_US}`,
      };
      expect(envelope((await both(proxy, request))[0]!).code).toBe(0);
      await revokeAtPlatform(revokedToken);
      const since = await lastSeq(sandbox);
      const refused = await call(proxy.unary, request);
      expect(refused.failure).toMatchObject({ code: 'connection_needs_regrant' });
      expect(refused.failure?.detail).toContain(request.account_id);
      expect(refused.body.toString()).not.toContain('40105');
      // The store still held the refused token: no retry, one platform call, and the connection is marked.
      expect((await requestLog(sandbox, since)).requests).toHaveLength(1);
      expect((await store.connections.findByAccountId(request.account_id))?.status).toBe('needs_regrant');
      const streamed = await call(proxy.stream, request);
      expect(streamed.failure).toMatchObject({ code: 'connection_needs_regrant' });
      expect((await requestLog(sandbox, since)).requests).toHaveLength(1);
    });

    it('retries once with the new token when the customer re-granted after the cached token died', async () => {
      const oldToken = await mint(sandbox, [NORTHWIND_BC]);
      const regranted = await connect(oldToken);
      const request = { account_id: regranted, path: '/v1.3/campaign/get/', query: `advertiser_id=${NORTHWIND_US}` };
      expect(JSON.parse((await call(proxy.unary, request)).body.toString()).code).toBe(0);
      await revokeAtPlatform(oldToken);
      const newToken = await mint(sandbox, [NORTHWIND_BC]);
      await store.connections.regrant(regranted, { access_token: newToken });
      const since = await lastSeq(sandbox);
      const after = await call(proxy.unary, request);
      expect(JSON.parse(after.body.toString()).code).toBe(0);
      const { requests } = await requestLog(sandbox, since);
      expect(requests.map((entry) => entry.headers['access-token'])).toEqual([oldToken, newToken]);
    });

    it('keeps the app under the platform QPS with the guard at the platform rate', async () => {
      const since = await lastSeq(slowSandbox);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          call(guarded.stream, {
            account_id: slowAccountId,
            path: '/v1.3/campaign/get/',
            query: `advertiser_id=${NORTHWIND_US}`,
          }),
        ),
      );
      expect(answers.map((answer) => JSON.parse(answer.body.toString()).code)).toEqual(Array(10).fill(0));
      expect((await requestLog(slowSandbox, since)).requests).toHaveLength(10);
    });

    it('passes 40100 through unchanged when the guard is set above the platform rate', async () => {
      // The sandbox counts an app's QPS over one second, as the platform does: each burst starts on an empty window.
      const emptyWindow = () => new Promise((resolve) => setTimeout(resolve, 1_100));
      await emptyWindow();
      const bursts = await Promise.all(
        Array.from({ length: 10 }, () =>
          call(unguarded.stream, {
            account_id: slowAccountId,
            path: '/v1.3/campaign/get/',
            query: `advertiser_id=${NORTHWIND_US}`,
          }),
        ),
      );
      const limited = bursts.filter((answer) => JSON.parse(answer.body.toString()).code === 40100);
      expect(limited.length).toBeGreaterThanOrEqual(5);

      await emptyWindow();
      const directs = await Promise.all(
        Array.from({ length: 6 }, () =>
          direct(slowSandbox, '/v1.3/campaign/get/', `advertiser_id=${NORTHWIND_US}`, slowToken),
        ),
      );
      const expected = masked(directs.find((answer) => envelope(answer).code === 40100)!);
      for (const answer of limited) {
        expect(
          masked({ status: answer.head!.status, contentType: answer.head!.contentType, body: answer.body }),
        ).toEqual(expected);
      }
    });
  });

  describe('(d) the read-only allowlist', () => {
    it.each([
      ['a write path', 'video-ads', '/v1.3/campaign/create/'],
      ['a status update', 'video-ads', '/v1.3/campaign/status/update/'],
      ['an encoded read path', 'video-ads', '/v1.3/campaign/%67et/'],
      ['an unknown provider', 'unknown-ads', '/v1.3/campaign/get/'],
      ['a re-cased provider', 'VIDEO-ADS', '/v1.3/campaign/get/'],
    ])('refuses %s with path_not_allowed and nothing reaches the platform', async (_what, provider, path) => {
      const since = await lastSeq(sandbox);
      const request = { provider, path, query: `advertiser_id=${NORTHWIND_US}` };
      const answers = await Promise.all([call(proxy.unary, request), call(proxy.stream, request)]);
      for (const answer of answers) {
        expect(answer.failure?.code).toBe('path_not_allowed');
        expect(answer.head).toBeUndefined();
      }
      expect((await requestLog(sandbox, since)).requests).toEqual([]);
    });
  });

  describe('(e) unreachable platforms', () => {
    it('maps a platform that never answers to platform_timeout', async () => {
      const started = Date.now();
      const request = { path: '/v1.3/campaign/get/', query: `advertiser_id=${NORTHWIND_US}`, timeout_ms: 800 };
      for (const answer of await Promise.all([call(toBlackHole.unary, request), call(toBlackHole.stream, request)])) {
        expect(answer.failure?.code).toBe('platform_timeout');
        expect(answer.failure?.detail).not.toMatch(/127\.0\.0\.1|advertiser_id/);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('maps a closed port to platform_unreachable', async () => {
      const request = { path: '/v1.3/oauth2/advertiser/get/', query: 'secret=caller-secret-1' };
      for (const answer of await Promise.all([call(toClosedPort.unary, request), call(toClosedPort.stream, request)])) {
        expect(answer.failure?.code).toBe('platform_unreachable');
        expect(answer.failure?.detail).not.toContain(APP_SECRET);
      }
    });
  });

  describe('(f) secrets', () => {
    it('never prints the app secret, a platform token or a caller token', async () => {
      // Health and metrics endpoints answer too; their output joins what is checked.
      const metrics = await (await fetch(`${proxy.service.urls.http}/metrics`)).text();
      expect(metrics).toContain('gateway_provider_upstream_request_duration_seconds');
      expect((await fetch(`${proxy.service.urls.http}/readyz`)).status).toBe(200);

      const exit = await proxy.service.stop('SIGTERM');
      expect(exit.code).toBe(0);
      expect(proxyOutput.length).toBeGreaterThan(50);
      const output = proxyOutput.join('\n');
      for (const secret of secrets) expect(output).not.toContain(secret);
      expect(output).not.toMatch(/caller-(at|secret)|access_token=|secret=/);
    });
  });
});
