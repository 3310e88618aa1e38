import type { Harness } from '../testing/sandbox.harness';
import {
  accessToken,
  apiCall,
  EU_ORG,
  GB_ORG,
  registerClient,
  startSearchAdsSandbox,
  US_ORG,
} from './testing/search-ads.harness';

const REPORT = {
  startTime: '2026-10-01',
  endTime: '2026-10-07',
  granularity: 'DAILY',
  selector: { pagination: { offset: 0, limit: 10 } },
  returnRowTotals: true,
};

describe('search-ads API errors', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startSearchAdsSandbox();
    token = await accessToken(h, await registerClient(h, [US_ORG.orgId, EU_ORG.orgId]));
  });
  afterAll(() => h.close());

  const firstError = (answer: {
    body: { error: { errors: { messageCode: string; field: string; message: string }[] } | null };
  }) => answer.body.error?.errors[0];

  it('answers 403 FORBIDDEN naming X-AP-Context when the header is missing', async () => {
    const answer = await apiCall(h, 'GET', '/campaigns', { token });
    expect(answer.status).toBe(403);
    expect(answer.body.data).toBeNull();
    expect(firstError(answer)?.messageCode).toBe('FORBIDDEN');
    expect(firstError(answer)?.message).toContain('X-AP-Context');
  });

  it('answers 403 FORBIDDEN for an org the API user may not access', async () => {
    const answer = await apiCall(h, 'GET', '/campaigns', { token, orgId: GB_ORG.orgId });
    expect(answer.status).toBe(403);
    expect(firstError(answer)?.messageCode).toBe('FORBIDDEN');
    const acls = await apiCall<{ orgId: number }[]>(h, 'GET', '/acls', { token });
    expect(acls.body.data.map((org) => org.orgId)).toEqual([US_ORG.orgId, EU_ORG.orgId]);
  });

  it('answers 400 INVALID_ATTRIBUTE_VALUE with the field for a bad limit or offset', async () => {
    for (const [query, field] of [
      ['limit=1001', 'limit'],
      ['limit=0', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const answer = await apiCall(h, 'GET', `/campaigns?${query}`, { token, orgId: US_ORG.orgId });
      expect(answer.status).toBe(400);
      expect(firstError(answer)).toMatchObject({ messageCode: 'INVALID_ATTRIBUTE_VALUE', field });
    }
  });

  it('answers 404 NOT_FOUND for an unknown campaign, ad group or path', async () => {
    const campaign = await apiCall(h, 'GET', '/campaigns/1234567890', { token, orgId: US_ORG.orgId });
    expect(campaign.status).toBe(404);
    expect(firstError(campaign)?.messageCode).toBe('NOT_FOUND');
    const list = await apiCall<{ id: number }[]>(h, 'GET', '/campaigns?limit=1', { token, orgId: EU_ORG.orgId });
    const otherOrg = await apiCall(h, 'GET', `/campaigns/${list.body.data[0]?.id}`, { token, orgId: US_ORG.orgId });
    expect(otherOrg.status).toBe(404);
    const group = await apiCall(h, 'GET', `/campaigns/${list.body.data[0]?.id}/adgroups/1/targetingkeywords`, {
      token,
      orgId: EU_ORG.orgId,
    });
    expect(group.status).toBe(404);
    const path = await apiCall(h, 'GET', '/nothing-here', { token, orgId: US_ORG.orgId });
    expect(path.status).toBe(404);
    expect(firstError(path)?.messageCode).toBe('NOT_FOUND');
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const answer = await apiCall(h, 'DELETE', '/acls', { token });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(firstError(answer)?.messageCode).toBe('METHOD_NOT_ALLOWED');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a malformed start date', { ...REPORT, startTime: '2026-13-01' }, 'startTime'],
    ['an end before the start', { ...REPORT, endTime: '2026-09-30' }, 'endTime'],
    ['no selector.pagination', { ...REPORT, selector: {} }, 'selector.pagination'],
    [
      'a limit above 1000',
      { ...REPORT, selector: { pagination: { offset: 0, limit: 1001 } } },
      'selector.pagination.limit',
    ],
    ['an unknown granularity', { ...REPORT, granularity: 'YEARLY' }, 'granularity'],
    ['too long a daily range', { ...REPORT, startTime: '2026-01-01', endTime: '2026-10-01' }, 'endTime'],
    [
      'a condition on an unknown field',
      {
        ...REPORT,
        selector: { ...REPORT.selector, conditions: [{ field: 'color', operator: 'EQUALS', values: ['x'] }] },
      },
      'selector.conditions[0].field',
    ],
    [
      'an unknown orderBy field',
      { ...REPORT, selector: { ...REPORT.selector, orderBy: [{ field: 'color', sortOrder: 'ASCENDING' }] } },
      'selector.orderBy[0].field',
    ],
  ])('refuses a report query with %s', async (_case, body, field) => {
    const answer = await apiCall(h, 'POST', '/reports/campaigns', { token, orgId: US_ORG.orgId, body });
    expect(answer.status).toBe(400);
    expect(firstError(answer)).toMatchObject({ messageCode: 'INVALID_ATTRIBUTE_VALUE', field });
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${h.url}/search-ads/api/v5/reports/campaigns`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'X-AP-Context': `orgId=${US_ORG.orgId}`,
        'Content-Type': 'application/json',
      },
      body: '{not json',
    });
    expect(response.status).toBe(400);
  });
});

describe('search-ads rate limit', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSearchAdsSandbox({ SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT: '3' });
  });
  afterAll(() => h.close());

  it('answers 429 with X-Rate-Limit once the hourly budget is spent, and again after the hour', async () => {
    const client = await registerClient(h);
    const token = await accessToken(h, client);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await apiCall(h, 'GET', '/acls', { token });
      expect(answer.status).toBe(200);
      remaining.push(answer.headers.get('x-rate-limit'));
    }
    expect(remaining).toEqual([
      'user-hour-lim:3;user-hour-rem:2;',
      'user-hour-lim:3;user-hour-rem:1;',
      'user-hour-lim:3;user-hour-rem:0;',
    ]);
    const limited = await apiCall(h, 'GET', '/acls', { token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-rate-limit')).toBe('user-hour-lim:3;user-hour-rem:0;');
    expect(limited.body).toMatchObject({ data: null, pagination: null });
    expect(limited.body.error?.errors[0]?.messageCode).toBe('TOO_MANY_REQUESTS');
    // The access token lives one hour too: the next hour starts with a new token and a new budget.
    h.clock.advance(3_600_000);
    const next = await apiCall(h, 'GET', '/acls', { token: await accessToken(h, client) });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-rate-limit')).toBe('user-hour-lim:3;user-hour-rem:2;');
  });
});
