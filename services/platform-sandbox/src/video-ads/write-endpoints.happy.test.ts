import { NORTHWIND_UK, NORTHWIND_US, startSandbox, type Harness } from '../testing/sandbox.harness';

describe('video-ads write endpoints', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSandbox();
    token = await h.grant({ advertiser_ids: [NORTHWIND_US] });
  });
  afterAll(() => h.close());

  it.each([
    [
      '/campaign/create/',
      { campaign_name: 'Launch', objective_type: 'TRAFFIC', budget_mode: 'BUDGET_MODE_DAY', budget: 100 },
      'campaign_id',
    ],
    ['/campaign/update/', { campaign_id: '1701000100964651219', campaign_name: 'Renamed' }, 'campaign_id'],
    [
      '/campaign/status/update/',
      { campaign_ids: ['1701000100964651219'], operation_status: 'DISABLE' },
      'campaign_ids',
    ],
    ['/adgroup/create/', { campaign_id: '1701000100964651219', adgroup_name: 'Broad' }, 'adgroup_id'],
    ['/adgroup/update/', { adgroup_id: '1801000010000000000', adgroup_name: 'Narrow' }, 'adgroup_id'],
    ['/adgroup/status/update/', { adgroup_ids: ['1801000010000000000'], operation_status: 'ENABLE' }, 'adgroup_ids'],
    ['/ad/create/', { adgroup_id: '1801000010000000000', creatives: [{ ad_name: 'New', ad_text: 'Hi' }] }, 'ad_ids'],
    ['/ad/update/', { adgroup_id: '1801000010000000000', creatives: [{ ad_id: '1', ad_name: 'Edit' }] }, 'creatives'],
    ['/ad/status/update/', { ad_ids: ['1901000010000000000'], operation_status: 'DELETE' }, 'ad_ids'],
    ['/ad/delete/', { ad_ids: ['1901000010000000000'] }, 'ad_ids'],
  ])('succeeds on POST %s', async (path, body, key) => {
    const { code, message, data } = await h.post(path, { advertiser_id: NORTHWIND_US, ...body }, token);
    expect({ code, message }).toEqual({ code: 0, message: 'OK' });
    expect(data).toHaveProperty(key);
  });

  it('still checks the token, the parameters and the advertiser permission', async () => {
    expect((await h.post('/campaign/create/', { advertiser_id: NORTHWIND_US }, 'bad')).code).toBe(40105);
    expect(
      await h.post('/campaign/create/', { advertiser_id: NORTHWIND_US, objective_type: 'TRAFFIC' }, token),
    ).toMatchObject({
      code: 40002,
      message: 'campaign_name: Missing data for required field.',
    });
    const foreign = await h.post('/ad/delete/', { advertiser_id: NORTHWIND_UK, ad_ids: ['1'] }, token);
    expect(foreign.code).toBe(40001);
  });

  it('changes nothing that the read paths show', async () => {
    const before = await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, page_size: 1000 }, token);
    await h.post(
      '/campaign/create/',
      { advertiser_id: NORTHWIND_US, campaign_name: 'X', objective_type: 'REACH' },
      token,
    );
    const after = await h.get('/campaign/get/', { advertiser_id: NORTHWIND_US, page_size: 1000 }, token);
    expect(after.data).toEqual(before.data);
  });
});
