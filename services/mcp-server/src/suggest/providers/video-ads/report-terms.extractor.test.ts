import { extractReportTerms } from './report-terms.extractor';

describe('report terms', () => {
  it('finds the finest grouping, the time grain and the metrics', () => {
    expect(extractReportTerms('spend and CTR of ads in each campaign, day by day')).toMatchObject({
      level: 'ad',
      time: 'day',
      metrics: ['spend', 'ctr'],
    });
    expect(extractReportTerms('hourly cost per click by ad group')).toMatchObject({
      level: 'adgroup',
      time: 'hour',
      metrics: ['cpc'],
    });
    expect(extractReportTerms('impressions, clicks, conversions and CPM per campaign')).toMatchObject({
      level: 'campaign',
      metrics: ['impressions', 'clicks', 'cpm', 'conversion'],
    });
    expect(extractReportTerms('total spend for advertiser 7012345678901234567').ids).toEqual(['7012345678901234567']);
  });

  it('does not take "ad group" or "ad spend" for ad-level rows', () => {
    expect(extractReportTerms('spend by ad group').level).toBe('adgroup');
    expect(extractReportTerms('total ad spend').level).toBeUndefined();
  });
});
