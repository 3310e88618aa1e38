import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  MemoryConnections,
  sendJson,
  startFakePlatform,
  startTestProxy,
  testConfig,
  TEST_APP_ID,
  TEST_APP_SECRET,
  type FakePlatform,
  type TestProxy,
} from '../proxy-harness.fixture';

const CAMPAIGNS = '/v1.3/campaign/get/';
const REVOKED = { code: 40105, message: 'Access token is incorrect or has been revoked.', request_id: '1', data: {} };

describe('provider-proxy Fetch', () => {
  let platform: FakePlatform;
  let connections: MemoryConnections;
  let harness: TestProxy;
  /** Tokens the fake platform refuses with 40105. */
  const revoked = new Set<string>();

  beforeAll(async () => {
    platform = await startFakePlatform((req, res) => {
      const token = req.headers['access-token'];
      if (typeof token === 'string' && revoked.has(token)) return sendJson(res, REVOKED);
      if (req.url?.startsWith('/open_api/v1.3/campaign/get/')) {
        // Odd bytes on purpose: the answer must arrive exactly as sent.
        const body = '{"code":0,"message":"OK","request_id":"2020042715295501023125104093250","data":{"list":[]}}  \n';
        res.writeHead(200, {
          'content-type': 'application/json;charset=UTF-8',
          'x-tt-logid': 'log-1',
          'set-cookie': 'a=b',
        });
        return res.end(body);
      }
      if (req.url?.startsWith('/open_api/v1.3/oauth2/advertiser/get/')) return sendJson(res, { code: 0, data: {} });
      if (req.url?.startsWith('/open_api/v1.3/ad/get/')) {
        res.writeHead(503, { 'content-type': 'text/html' });
        return res.end('<html>busy</html>');
      }
      sendJson(res, { code: 40002, message: 'unexpected' });
    });
    connections = new MemoryConnections();
    harness = await startTestProxy(testConfig(platform.baseUrl), connections);
  });

  afterAll(async () => {
    await harness.close();
    await platform.close();
  });

  beforeEach(() => {
    platform.requests.length = 0;
    revoked.clear();
  });

  it('returns the platform status, content type and body byte for byte', async () => {
    const accountId = connections.add('token-a');
    const response = await harness.fetch({
      provider: 'video-ads',
      account_id: accountId,
      path: CAMPAIGNS,
      query: 'advertiser_id=1',
    });
    expect(response.failure).toBeNull();
    expect(response.status).toBe(200);
    expect(response.content_type).toBe('application/json;charset=UTF-8');
    expect(response.body.toString()).toBe(
      '{"code":0,"message":"OK","request_id":"2020042715295501023125104093250","data":{"list":[]}}  \n',
    );
    expect(response.headers).toEqual({ 'x-tt-logid': 'log-1' });
  });

  it('passes non-200 platform answers on unchanged', async () => {
    const accountId = connections.add('token-a');
    const response = await harness.fetch({ provider: 'video-ads', account_id: accountId, path: '/v1.3/ad/get/' });
    expect(response).toMatchObject({ status: 503, content_type: 'text/html', failure: null });
    expect(response.body.toString()).toBe('<html>busy</html>');
  });

  it('sends the connection token as Access-Token and nothing of the caller', async () => {
    const accountId = connections.add('token-b');
    await harness.fetch({
      provider: 'video-ads',
      account_id: accountId,
      path: CAMPAIGNS,
      query:
        'advertiser_id=1&access_token=evil&ACCESS_TOKEN=evil&access%5Ftoken=evil&app_id=9&secret=s&fields=["a","b"]',
    });
    const [seen] = platform.requests;
    expect(seen?.url).toBe('/open_api/v1.3/campaign/get/?advertiser_id=1&fields=["a","b"]');
    expect(seen?.headers['access-token']).toBe('token-b');
    expect(seen?.headers['accept-encoding']).toBe('identity');
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('adds the app id and secret only where the endpoint needs them', async () => {
    const accountId = connections.add('token-c');
    await harness.fetch({
      provider: 'video-ads',
      account_id: accountId,
      path: '/v1.3/oauth2/advertiser/get/',
      query: 'secret=caller&app_id=1',
    });
    expect(platform.requests[0]?.url).toBe(
      `/open_api/v1.3/oauth2/advertiser/get/?app_id=${TEST_APP_ID}&secret=${TEST_APP_SECRET}`,
    );
  });

  it.each([
    ['a write path', 'video-ads', '/v1.3/campaign/create/'],
    ['a status update', 'video-ads', '/v1.3/campaign/status/update/'],
    ['a disguised path', 'video-ads', '/v1.3/campaign/%67et/'],
    ['an unknown provider', 'nope', CAMPAIGNS],
    ['a provider without endpoints', 'search-ads', CAMPAIGNS],
  ])('refuses %s with path_not_allowed without calling the platform', async (_what, provider, path) => {
    const accountId = connections.add('token-d');
    const response = await harness.fetch({ provider, account_id: accountId, path });
    expect(response.failure?.code).toBe('path_not_allowed');
    expect(platform.requests).toHaveLength(0);
  });

  it('answers connection_unavailable for a missing, inactive or foreign connection', async () => {
    const inactive = connections.add('token-e', 'video-ads', false);
    const foreign = connections.add('token-f', 'video-shop');
    for (const accountId of ['acct_00000000000000000000', inactive, foreign]) {
      const response = await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
      expect(response.failure?.code).toBe('connection_unavailable');
    }
    expect(platform.requests).toHaveLength(0);
  });

  it('refuses a malformed account id or query as invalid_request', async () => {
    expect((await harness.fetch({ provider: 'video-ads', account_id: 'x', path: CAMPAIGNS })).failure?.code).toBe(
      'invalid_request',
    );
    const accountId = connections.add('token-g');
    const response = await harness.fetch({
      provider: 'video-ads',
      account_id: accountId,
      path: CAMPAIGNS,
      query: 'a=b c',
    });
    expect(response.failure?.code).toBe('invalid_request');
    expect(platform.requests).toHaveLength(0);
  });

  it('retries once with the re-granted token after a cached token is refused', async () => {
    const accountId = connections.add('old-token');
    await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
    revoked.add('old-token');
    connections.set(accountId, 'new-token');
    platform.requests.length = 0;
    const response = await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
    expect(JSON.parse(response.body.toString()).code).toBe(0);
    expect(platform.requests.map((request) => request.headers['access-token'])).toEqual(['old-token', 'new-token']);
  });

  it('marks the connection needs_regrant, never passing 40105 on, when the stored token is the refused one', async () => {
    const accountId = connections.add('dead-token');
    await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
    revoked.add('dead-token');
    platform.requests.length = 0;
    const readsBefore = connections.reads;
    const response = await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
    expect(response.failure).toMatchObject({ code: 'connection_needs_regrant' });
    expect(response.failure?.detail).toContain(accountId);
    expect(response.body.toString()).not.toContain('40105');
    expect(platform.requests).toHaveLength(1);
    expect(connections.reads - readsBefore).toBe(1);
    expect(connections.lookups.get(accountId)).toMatchObject({ active: false, status: 'needs_regrant' });
    // The next request never reaches the platform until the customer re-grants.
    const next = await harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS });
    expect(next.failure).toMatchObject({ code: 'connection_needs_regrant' });
    expect(platform.requests).toHaveLength(1);
  });

  it('serves the metrics, liveness and readiness endpoints', async () => {
    const metrics = await (await fetch(`${harness.proxy.httpUrl}/metrics`)).text();
    expect(metrics).toContain('gateway_provider_upstream_request_duration_seconds_bucket');
    expect(metrics).toContain('gateway_provider_proxy_failures_total{provider="video-ads",code="path_not_allowed"');
    expect((await fetch(`${harness.proxy.httpUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${harness.proxy.httpUrl}/readyz`)).status).toBe(200);
  });
});

describe('provider-proxy failures', () => {
  const connections = new MemoryConnections();
  const accountId = connections.add('token');

  it('maps a platform that accepts but never answers to platform_timeout', async () => {
    const blackHole: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
    const harness = await startTestProxy(testConfig(url), connections);
    try {
      const started = Date.now();
      const response = await harness.fetch({
        provider: 'video-ads',
        account_id: accountId,
        path: CAMPAIGNS,
        timeout_ms: 300,
        query: 'access_token=caller-secret',
      });
      expect(response.failure?.code).toBe('platform_timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(response.failure?.detail).not.toMatch(/caller-secret|127\.0\.0\.1|token/);
    } finally {
      await harness.close();
      blackHole.close();
    }
  });

  it('maps a closed port to platform_unreachable without the URL in the detail', async () => {
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const harness = await startTestProxy(testConfig(`http://127.0.0.1:${port}`), connections);
    try {
      const response = await harness.fetch({
        provider: 'video-ads',
        account_id: accountId,
        path: '/v1.3/oauth2/advertiser/get/',
      });
      expect(response.failure?.code).toBe('platform_unreachable');
      expect(response.failure?.detail).not.toContain(String(port));
      expect(response.failure?.detail).not.toContain(TEST_APP_SECRET);
    } finally {
      await harness.close();
    }
  });

  it('answers platform_busy instead of queueing past the QPS guard limits', async () => {
    const platform = await startFakePlatform((_req, res) => sendJson(res, { code: 0 }));
    const harness = await startTestProxy(
      testConfig(platform.baseUrl, { VIDEO_ADS_APP_QPS: 2, QPS_MAX_WAIT_MS: 600, QPS_QUEUE_LIMIT: 10 }),
      connections,
    );
    try {
      const responses = await Promise.all(
        Array.from({ length: 4 }, () =>
          harness.fetch({ provider: 'video-ads', account_id: accountId, path: CAMPAIGNS }),
        ),
      );
      // Slots at 0, 500 and 1000 ms: the first two fit in the 600 ms wait, the rest are refused at once.
      expect(responses.map((response) => response.failure?.code ?? response.status)).toEqual([
        200,
        200,
        'platform_busy',
        'platform_busy',
      ]);
      expect(platform.requests).toHaveLength(2);
    } finally {
      await harness.close();
      await platform.close();
    }
  });
});

describe('provider-proxy token renewal and bodies', () => {
  const SHOP_INFO = '/api/v2/shop/get_shop_info';
  const REFRESH_PATH = '/api/v2/auth/access_token/get';
  const marketplaceConfig = (baseUrl: string) =>
    testConfig(baseUrl, {
      MARKETPLACE_BASE_URL: baseUrl,
      MARKETPLACE_PARTNER_ID: '2001001',
      MARKETPLACE_PARTNER_KEY: 'partner-key',
      MARKETPLACE_APP_QPS: 0,
      MARKETPLACE_RENEW_AHEAD_MS: 600_000,
      MARKETPLACE_REFRESH_TOKEN_LIFETIME_MS: 30 * 86_400_000,
      SEARCH_ADS_ENABLED: true,
      SEARCH_ADS_API_URL: baseUrl,
      SEARCH_ADS_AUTH_URL: baseUrl,
      SEARCH_ADS_QPS: 0,
      SEARCH_ADS_RENEW_AHEAD_MS: 300_000,
    });

  it('stores the pair of a refresh whose caller gave up, so the grant lives and the next request uses it', async () => {
    let releaseRefresh: () => void = () => undefined;
    const refreshHeld = new Promise<void>((resolve) => (releaseRefresh = resolve));
    const bodies: string[] = [];
    const platform = await startFakePlatform((req, res) => {
      if (req.url?.startsWith(REFRESH_PATH)) {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          bodies.push(body);
          // The platform spends the refresh token now and answers only after the caller's deadline.
          void refreshHeld.then(() =>
            sendJson(res, {
              error: '',
              message: '',
              access_token: 'access-2',
              refresh_token: 'refresh-2',
              expire_in: 14_400,
            }),
          );
        });
        return;
      }
      sendJson(res, { error: '', message: '', request_id: 'r', response: { shop_name: 'shop' } });
    });
    const connections = new MemoryConnections();
    const accountId = connections.add('unused', 'marketplace');
    connections.lookups.set(accountId, {
      found: true,
      provider: 'marketplace',
      active: true,
      credentials: {
        access_token: 'access-1',
        refresh_token: 'refresh-1',
        // Due for renewal (less than 10 minutes left), still valid.
        access_token_expires_at: new Date(Date.now() + 60_000).toISOString(),
        attributes: { shop_id: '42' },
      },
    });
    const harness = await startTestProxy(marketplaceConfig(platform.baseUrl), connections);
    try {
      const gaveUp = await harness.fetch({
        provider: 'marketplace',
        account_id: accountId,
        path: SHOP_INFO,
        timeout_ms: 200,
      });
      expect(gaveUp.failure?.code).toBe('platform_timeout');
      expect(bodies).toHaveLength(1);
      releaseRefresh();
      await waitFor(() => {
        const stored = connections.lookups.get(accountId);
        return stored?.found === true && stored.active && stored.credentials.refresh_token === 'refresh-2';
      });

      const next = await harness.fetch({ provider: 'marketplace', account_id: accountId, path: SHOP_INFO });
      expect(next.failure).toBeNull();
      expect(next.status).toBe(200);
      const read = platform.requests.filter((r) => r.url.startsWith(SHOP_INFO)).at(-1);
      expect(new URLSearchParams(read!.url.split('?')[1]).get('access_token')).toBe('access-2');
      expect(bodies.map((body) => (JSON.parse(body) as { refresh_token: string }).refresh_token)).toEqual([
        'refresh-1',
      ]);
      expect(connections.lookups.get(accountId)).toMatchObject({
        active: true,
        credentials: { access_token: 'access-2', refresh_token: 'refresh-2' },
      });
    } finally {
      releaseRefresh();
      await harness.close();
      await platform.close();
    }
  });

  it('refuses a body above 64 KiB with payload_too_large before any platform call', async () => {
    const platform = await startFakePlatform((_req, res) => sendJson(res, {}));
    const connections = new MemoryConnections();
    const accountId = connections.add('token', 'search-ads');
    const harness = await startTestProxy(marketplaceConfig(platform.baseUrl), connections);
    try {
      const body = Buffer.from(JSON.stringify({ startTime: '2026-11-16', padding: 'x'.repeat(64 * 1024) }));
      const response = await harness.fetch({
        provider: 'search-ads',
        account_id: accountId,
        method: 'POST',
        path: '/api/v5/reports/campaigns',
        body,
      });
      expect(response.failure).toEqual({
        code: 'payload_too_large',
        detail: 'the body may be at most 65536 bytes',
      });
      expect(platform.requests).toHaveLength(0);
    } finally {
      await harness.close();
      await platform.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const started = Date.now(); !condition();) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
