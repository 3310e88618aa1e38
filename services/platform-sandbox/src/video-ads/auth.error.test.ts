import {
  NORTHWIND_UK,
  NORTHWIND_US,
  PIXEL_PANTRY,
  startSandbox,
  type Envelope,
  type Harness,
} from '../testing/sandbox.harness';

describe('video-ads authentication, permission and rate errors', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSandbox();
    token = await h.grant({ advertiser_ids: [NORTHWIND_US] });
  });
  afterAll(() => h.close());

  it('answers 40105 with HTTP 200 for an unknown token', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/campaign/get/?advertiser_id=${NORTHWIND_US}`, {
      headers: { 'Access-Token': 'f'.repeat(40) },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      code: 40105,
      message: 'Access token is incorrect or has been revoked.',
      data: {},
    });
  });

  it('does not accept the token as a Bearer authorization', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/campaign/get/?advertiser_id=${NORTHWIND_US}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(((await response.json()) as Envelope).code).toBe(40104);
    const prefixed = await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, `Bearer ${token}`);
    expect(prefixed.code).toBe(40105);
  });

  it('answers 40001 for an advertiser the token was not granted', async () => {
    for (const path of ['/campaign/get/', '/adgroup/get/', '/ad/get/', '/gmv_max/store/list/']) {
      const body = await h.get(path, { advertiser_id: NORTHWIND_UK }, token);
      expect(body).toMatchObject({
        code: 40001,
        message: `No permission to operate advertiser: ${NORTHWIND_UK}`,
        data: {},
      });
    }
    const info = await h.get('/advertiser/info/', { advertiser_ids: [NORTHWIND_US, PIXEL_PANTRY] }, token);
    expect(info.message).toBe(`No permission to operate advertiser: ${PIXEL_PANTRY}`);
    const report = await h.get(
      '/report/integrated/get/',
      {
        advertiser_id: '1234567890',
        report_type: 'BASIC',
        data_level: 'AUCTION_AD',
        dimensions: ['ad_id'],
        start_date: '2026-10-01',
        end_date: '2026-10-01',
      },
      token,
    );
    expect(report.code).toBe(40001);
  });

  it('answers 40101 when app_id or secret is wrong on /oauth2/advertiser/get/', async () => {
    const wrongSecret = await h.get(
      '/oauth2/advertiser/get/',
      { app_id: h.config.SANDBOX_APP_ID, secret: 'not-the-secret' },
      token,
    );
    expect(wrongSecret).toMatchObject({ code: 40101, data: {} });
    const wrongApp = await h.get(
      '/oauth2/advertiser/get/',
      { app_id: '123', secret: h.config.SANDBOX_APP_SECRET },
      token,
    );
    expect(wrongApp.code).toBe(40101);
    const missing = await h.get('/oauth2/advertiser/get/', {}, token);
    expect(missing).toMatchObject({ code: 40002, message: 'app_id: Missing data for required field.' });
  });

  it('checks the token before anything else', async () => {
    const body = await h.get('/oauth2/advertiser/get/', { app_id: '123', secret: 'x' }, 'nope');
    expect(body.code).toBe(40105);
  });

  it('answers HTTP 404 with code 40400 for a path the API does not have', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/campaign/list/`, { headers: { 'Access-Token': token } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 40400, data: {} });
    const outside = await fetch(`${h.url}/somewhere`);
    expect(outside.status).toBe(404);
  });

  it('answers HTTP 405 with code 40500 for a read path called with POST', async () => {
    const response = await fetch(`${h.url}/open_api/v1.3/campaign/get/`, {
      method: 'POST',
      headers: { 'Access-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ advertiser_id: NORTHWIND_US }),
    });
    expect(response.status).toBe(405);
    expect(((await response.json()) as Envelope).code).toBe(40500);
  });
});

describe('video-ads app QPS limit', () => {
  it('answers 40100 beyond the app QPS and admits again one second later', async () => {
    const h = await startSandbox({ SANDBOX_APP_QPS: '3' });
    try {
      const token = await h.grant({ advertiser_ids: [NORTHWIND_US] });
      const call = () => h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, page_size: 1 }, token);
      const codes = [];
      for (let i = 0; i < 5; i++) codes.push((await call()).code);
      expect(codes).toEqual([0, 0, 0, 40100, 40100]);
      const limited = await call();
      expect(limited).toMatchObject({ code: 40100, message: 'App reaches the QPS limit.', data: {} });

      h.clock.advance(1000);
      expect((await call()).code).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('counts every token of the same app together', async () => {
    const h = await startSandbox({ SANDBOX_APP_QPS: '2' });
    try {
      const first = await h.grant({ advertiser_ids: [NORTHWIND_US] });
      const second = await h.grant({ advertiser_ids: [NORTHWIND_UK] });
      expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US }, first)).code).toBe(0);
      expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_UK }, second)).code).toBe(0);
      expect((await h.get('/campaign/get/', { advertiser_id: NORTHWIND_UK }, second)).code).toBe(40100);
    } finally {
      await h.close();
    }
  });
});
