import { deprecationPage, deprecationsDocument, lifecycleHeaders } from './version-lifecycle';

describe('version lifecycle', () => {
  it('marks every path of search-ads v5 with Deprecation, Sunset and a Link to its page', () => {
    for (const path of ['/api/v5/campaigns', '/api/v5/campaigns/..%2F', '/api/v5/reports/campaigns', '/api/v5/x']) {
      expect(lifecycleHeaders('search-ads', path)).toEqual({
        Deprecation: '@1795564800',
        Sunset: 'Tue, 26 Jan 2027 00:00:00 GMT',
        Link:
          '</v1/deprecations/search-ads/v5>; rel="deprecation"; type="text/html", ' +
          '</v1/deprecations/search-ads/v5>; rel="sunset"; type="text/html"',
      });
    }
  });

  it('leaves other versions and providers unmarked', () => {
    expect(lifecycleHeaders('search-ads', '/api/v4/campaigns')).toEqual({});
    expect(lifecycleHeaders('search-ads', ';x/api/v5/campaigns')).toEqual({});
    expect(lifecycleHeaders('video-ads', '/v1.3/campaign/get/')).toEqual({});
  });

  it('names the page of each retiring version in the JSON list', () => {
    expect(deprecationsDocument()).toMatchObject({
      deprecations: [
        {
          provider: 'search-ads',
          version: 'v5',
          sunset: '2027-01-26',
          documentation: '/v1/deprecations/search-ads/v5',
          migration: expect.arrayContaining([expect.stringContaining('2027-01-26')]) as unknown,
        },
      ],
    });
  });

  it('serves a page for a retiring version only, with its dates and steps', () => {
    const page = deprecationPage('search-ads', 'v5');
    expect(page).toContain('<h1>search-ads: API v5 is retiring</h1>');
    expect(page).toContain('Retired by the platform on 2027-01-26');
    expect(page).toContain('<h2>What to do</h2>');
    expect(deprecationPage('search-ads', 'v6')).toBeUndefined();
    expect(deprecationPage('video-ads', 'v5')).toBeUndefined();
    expect(deprecationPage('<script>', 'v5')).toBeUndefined();
  });
});
