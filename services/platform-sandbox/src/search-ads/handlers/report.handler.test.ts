import { campaignsOf, runReport, type LooseRow } from '../testing/report.runner';

/** Reports over one November week against the generated US org (the same data on every run). */
function report(selector: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const answer = runReport({
    startTime: '2026-11-01',
    endTime: '2026-11-07',
    selector: { pagination: { offset: 0, limit: 1000 }, ...selector },
    returnRowTotals: true,
    returnGrandTotals: true,
    ...extra,
  });
  expect(answer.status).toBe(200);
  return answer;
}

const where = (field: string, operator: string, values: string[]) =>
  report({ conditions: [{ field, operator, values }] }).rows;
const ids = (rows: LooseRow[]): number[] => rows.map((row) => row.metadata.campaignId);
const spend = (row: LooseRow): number => Number(row.total.localSpend.amount);

describe('campaign report conditions, per field type', () => {
  const all = report().rows;
  const sortedIds = ids(all).sort((a, b) => a - b);

  it('has delivering campaigns to filter', () => {
    expect(all.length).toBeGreaterThan(10);
  });

  it('compares campaign ids as numbers: EQUALS, IN, LESS_THAN, GREATER_THAN, BETWEEN (inclusive)', () => {
    const [low, mid, high] = [sortedIds[2]!, sortedIds[5]!, sortedIds[8]!];
    expect(ids(where('campaignId', 'EQUALS', [String(mid)]))).toEqual([mid]);
    expect(ids(where('campaignId', 'IN', [String(low), String(high)])).sort()).toEqual([low, high].sort());
    expect(ids(where('campaignId', 'LESS_THAN', [String(mid)])).sort((a, b) => a - b)).toEqual(sortedIds.slice(0, 5));
    expect(ids(where('campaignId', 'GREATER_THAN', [String(mid)])).sort((a, b) => a - b)).toEqual(sortedIds.slice(6));
    expect(ids(where('campaignId', 'BETWEEN', [String(low), String(high)])).sort((a, b) => a - b)).toEqual(
      sortedIds.slice(2, 9),
    );
  });

  it("compares metrics on the row's totals, money by its amount", () => {
    const impressions = all.map((row) => row.total.impressions as number).sort((a, b) => a - b);
    const median = impressions[Math.floor(impressions.length / 2)]!;
    const above = where('impressions', 'GREATER_THAN', [String(median)]);
    expect(above.length).toBe(impressions.filter((value) => value > median).length);
    expect(above.every((row) => row.total.impressions > median)).toBe(true);
    expect(where('impressions', 'EQUALS', [String(median)]).every((row) => row.total.impressions === median)).toBe(
      true,
    );
    const cheap = where('localSpend', 'LESS_THAN', ['500']);
    expect(cheap.length).toBe(all.filter((row) => spend(row) < 500).length);
    const band = where('localSpend', 'BETWEEN', ['200', '800.50']);
    expect(band.length).toBe(all.filter((row) => spend(row) >= 200 && spend(row) <= 800.5).length);
    expect(where('ttr', 'GREATER_THAN', ['1'])).toEqual([]);
  });

  it('matches names exactly (EQUALS, IN) or by fragment (CONTAINS, STARTSWITH)', () => {
    const name = all[0].metadata.campaignName as string;
    const app = name.split(' - ')[0]!;
    expect(where('campaignName', 'EQUALS', [name]).map((row) => row.metadata.campaignName)).toEqual([name]);
    expect(where('campaignName', 'EQUALS', [app])).toEqual([]);
    expect(ids(where('campaignName', 'IN', [name, 'nothing']))).toEqual([all[0].metadata.campaignId]);
    const starts = where('campaignName', 'STARTSWITH', [app]);
    expect(starts.length).toBe(all.filter((row) => row.metadata.campaignName.startsWith(app)).length);
    expect(starts.length).toBeGreaterThan(0);
    const contains = where('campaignName', 'CONTAINS', [' - Brand - ']);
    expect(contains.length).toBe(all.filter((row) => row.metadata.campaignName.includes(' - Brand - ')).length);
  });

  it('matches statuses and channel types by value', () => {
    expect(where('campaignStatus', 'EQUALS', ['PAUSED'])).toEqual([]); // paused campaigns deliver nothing
    expect(where('campaignStatus', 'IN', ['ENABLED', 'PAUSED']).length).toBe(all.length);
    const search = where('adChannelType', 'EQUALS', ['SEARCH']);
    expect(search.length).toBe(all.filter((row) => row.metadata.adChannelType === 'SEARCH').length);
    expect(where('servingStatus', 'EQUALS', ['RUNNING']).length).toBe(
      all.filter((row) => row.metadata.servingStatus === 'RUNNING').length,
    );
  });

  it('asks lists whether they contain one, any or all of the values', () => {
    const count = (test: (countries: string[]) => boolean) =>
      all.filter((row) => test(row.metadata.countriesOrRegions)).length;
    expect(where('countriesOrRegions', 'CONTAINS', ['CA']).length).toBe(count((c) => c.includes('CA')));
    expect(where('countriesOrRegions', 'CONTAINS_ANY', ['CA', 'MX']).length).toBe(
      count((c) => c.includes('CA') || c.includes('MX')),
    );
    expect(where('countriesOrRegions', 'CONTAINS_ALL', ['CA', 'MX']).length).toBe(
      count((c) => c.includes('CA') && c.includes('MX')),
    );
    expect(count((c) => c.includes('CA') && c.includes('MX'))).toBeLessThan(count((c) => c.includes('CA')));
    expect(where('supplySources', 'CONTAINS', ['APPSTORE_SEARCH_RESULTS']).length).toBe(
      all.filter((row) => row.metadata.supplySources.includes('APPSTORE_SEARCH_RESULTS')).length,
    );
  });

  it('takes deleted = false for every campaign and deleted = true for none', () => {
    expect(where('deleted', 'EQUALS', ['false']).length).toBe(all.length);
    expect(where('deleted', 'EQUALS', ['true'])).toEqual([]);
  });

  it('keeps only rows that meet every condition, and counts the grand totals over them', () => {
    const answer = report({
      conditions: [
        { field: 'adChannelType', operator: 'EQUALS', values: ['SEARCH'] },
        { field: 'taps', operator: 'GREATER_THAN', values: ['100'] },
      ],
    });
    expect(answer.rows.every((row) => row.metadata.adChannelType === 'SEARCH' && row.total.taps > 100)).toBe(true);
    const summed = answer.rows.reduce((sum, row) => sum + (row.total.impressions as number), 0);
    expect(answer.grandTotals.total.impressions).toBe(summed);
  });
});

describe('campaign report groupBy', () => {
  const plain = report().rows;
  const totals = new Map(plain.map((row) => [row.metadata.campaignId, row.total.impressions as number]));

  it.each(['countryOrRegion', 'adminArea', 'locality', 'deviceClass', 'ageRange', 'gender'])(
    'splits each campaign into one row per %s, the parts adding up to the campaign',
    (dimension) => {
      const answer = report({}, { groupBy: [dimension] });
      expect(answer.rows.every((row) => typeof row.metadata[dimension] === 'string')).toBe(true);
      const summed = new Map<number, number>();
      for (const row of answer.rows) {
        const id = row.metadata.campaignId as number;
        summed.set(id, (summed.get(id) ?? 0) + (row.total.impressions as number));
      }
      expect(summed).toEqual(totals);
      const keys = answer.rows.map((row) => `${row.metadata.campaignId}/${row.metadata[dimension]}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(JSON.stringify(report({}, { groupBy: [dimension] }))).toBe(JSON.stringify(answer));
    },
  );

  it('names admin areas and localities within the storefronts of the campaign', () => {
    const byCampaign = new Map(campaignsOf().map((campaign) => [campaign.id, campaign.countriesOrRegions]));
    for (const dimension of ['adminArea', 'locality']) {
      for (const row of report({}, { groupBy: [dimension] }).rows) {
        const [country] = (row.metadata[dimension] as string).split('|');
        expect(byCampaign.get(row.metadata.campaignId)).toContain(country);
      }
    }
  });

  it('filters and sorts the per-dimension rows', () => {
    const rows = report(
      {
        conditions: [{ field: 'impressions', operator: 'GREATER_THAN', values: ['1000'] }],
        orderBy: [{ field: 'impressions', sortOrder: 'DESCENDING' }],
      },
      { groupBy: ['deviceClass'] },
    ).rows;
    const impressions = rows.map((row) => row.total.impressions as number);
    expect(impressions.every((value) => value > 1000)).toBe(true);
    expect(impressions).toEqual([...impressions].sort((a, b) => b - a));
  });
});
