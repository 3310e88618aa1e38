import { NORTHWIND_BC, NORTHWIND_US, startSandbox, type Harness } from '../testing/sandbox.harness';
import type { LoggedRequest } from './request-log';

interface LogPage {
  requests: LoggedRequest[];
  last_seq: number;
}

describe('sandbox control surface', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSandbox();
  });
  afterAll(() => h.close());

  async function log(since = 0, pathPrefix?: string): Promise<LogPage> {
    const query = new URLSearchParams({ since: String(since), ...(pathPrefix ? { path_prefix: pathPrefix } : {}) });
    return (await (await fetch(`${h.url}/_sandbox/requests?${query.toString()}`)).json()) as LogPage;
  }

  it('records method, path, raw query, every header and the body of each request', async () => {
    const token = await h.grant({ advertiser_ids: [NORTHWIND_US] });
    const start = (await log()).last_seq;
    const rawQuery = `advertiser_id=${NORTHWIND_US}&filtering=%7B%22primary_status%22%3A%22STATUS_ALL%22%7D`;
    await fetch(`${h.url}/open_api/v1.3/campaign/get/?${rawQuery}`, {
      headers: { 'Access-Token': token, 'X-Trace': 'abc' },
    });
    await fetch(`${h.url}/open_api/v1.3/campaign/create/`, {
      method: 'POST',
      headers: { 'Access-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ advertiser_id: NORTHWIND_US, campaign_name: 'x', objective_type: 'TRAFFIC' }),
    });

    const { requests, last_seq: last } = await log(start);
    expect(requests).toHaveLength(2);
    expect(last).toBe(start + 2);
    const [read, write] = requests as [LoggedRequest, LoggedRequest];
    expect(read).toMatchObject({
      seq: start + 1,
      method: 'GET',
      path: '/open_api/v1.3/campaign/get/',
      query: rawQuery,
      body: null,
    });
    expect(read.headers['access-token']).toBe(token);
    expect(read.headers['x-trace']).toBe('abc');
    expect(new Date(read.time).getTime()).not.toBeNaN();
    expect(write).toMatchObject({ method: 'POST', path: '/open_api/v1.3/campaign/create/' });
    expect(JSON.parse(write.body ?? '')).toMatchObject({ campaign_name: 'x' });

    const writesOnly = await log(start, '/open_api/v1.3/campaign/create/');
    expect(writesOnly.requests.map((entry) => entry.seq)).toEqual([start + 2]);
  });

  it('clears the log while sequence numbers keep growing', async () => {
    await fetch(`${h.url}/open_api/v1.3/ad/get/`);
    const before = (await log()).last_seq;
    const cleared = (await (await fetch(`${h.url}/_sandbox/requests`, { method: 'DELETE' })).json()) as {
      cleared: number;
    };
    expect(cleared.cleared).toBeGreaterThan(0);
    expect((await log()).requests).toEqual([]);
    await fetch(`${h.url}/open_api/v1.3/ad/get/`);
    const after = await log();
    expect(after.requests.map((entry) => entry.seq)).toEqual([before + 1]);
  });

  it('lists the business centers and their advertisers', async () => {
    const accounts = (await (await fetch(`${h.url}/_sandbox/accounts`)).json()) as {
      app_id: string;
      business_centers: { bc_id: string; advertisers: { advertiser_id: string }[] }[];
    };
    expect(accounts.app_id).toBe(h.config.SANDBOX_APP_ID);
    expect(accounts.business_centers.length).toBeGreaterThanOrEqual(3);
    expect(accounts.business_centers[0]?.bc_id).toBe(NORTHWIND_BC);
    expect(JSON.stringify(accounts)).not.toContain(h.config.SANDBOX_APP_SECRET);
  });

  it('mints grants for chosen advertisers or business centers and refuses unknown ones', async () => {
    const byBc = await fetch(`${h.url}/_sandbox/grants`, {
      method: 'POST',
      body: JSON.stringify({ bc_ids: [NORTHWIND_BC] }),
    });
    expect(byBc.status).toBe(201);
    expect(((await byBc.json()) as { advertiser_ids: string[] }).advertiser_ids).toHaveLength(3);
    const unknown = await fetch(`${h.url}/_sandbox/grants`, {
      method: 'POST',
      body: JSON.stringify({ advertiser_ids: ['42'] }),
    });
    expect(unknown.status).toBe(400);
    const empty = await fetch(`${h.url}/_sandbox/grants`, { method: 'POST', body: '{}' });
    expect(empty.status).toBe(400);
  });

  it('answers the health check', async () => {
    const response = await fetch(`${h.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('sandbox control surface in production mode', () => {
  it('does not exist: every /_sandbox path is 404 and nothing is logged', async () => {
    const h = await startSandbox({ NODE_ENV: 'production' });
    try {
      expect(h.sandbox.requestLog).toBeUndefined();
      for (const [method, path] of [
        ['GET', '/_sandbox/requests'],
        ['DELETE', '/_sandbox/requests'],
        ['POST', '/_sandbox/grants'],
        ['POST', '/_sandbox/tokens/revoke'],
        ['GET', '/_sandbox/accounts'],
      ] as const) {
        const response = await fetch(`${h.url}${path}`, { method, body: method === 'GET' ? undefined : '{}' });
        expect(response.status).toBe(404);
      }
      expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
