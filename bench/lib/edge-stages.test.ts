import { parsePrometheusText } from '@gateway/testing';
import { collectorFigures } from './edge-stages';

const scrape = (minor: [number, number, number], major: [number, number, number]) =>
  parsePrometheusText(
    [
      '# TYPE gateway_nodejs_gc_duration_seconds histogram',
      ...(
        [
          ['minor', minor],
          ['major', major],
        ] as const
      ).flatMap(([kind, [underTen, count, sum]]) => [
        `gateway_nodejs_gc_duration_seconds_bucket{le="0.001",kind="${kind}"} 0`,
        `gateway_nodejs_gc_duration_seconds_bucket{le="0.01",kind="${kind}"} ${underTen}`,
        `gateway_nodejs_gc_duration_seconds_bucket{le="+Inf",kind="${kind}"} ${count}`,
        `gateway_nodejs_gc_duration_seconds_sum{kind="${kind}"} ${sum}`,
        `gateway_nodejs_gc_duration_seconds_count{kind="${kind}"} ${count}`,
      ]),
    ].join('\n'),
  );

it('collector figures - the pauses of every kind between two scrapes, and those over 10 ms', () => {
  const before = scrape([10, 12, 0.05], [1, 2, 0.03]);
  const after = scrape([17, 21, 0.125], [1, 3, 0.063]);
  const figures = collectorFigures(before, after);
  expect(figures.pauses).toBe(10);
  expect(figures.totalMs).toBeCloseTo(108, 6);
  expect(figures.over10Ms).toBe(3);
});

it('collector figures - a process without the histogram counts no pause', () => {
  expect(collectorFigures([], [])).toEqual({ pauses: 0, totalMs: 0, over10Ms: 0 });
});
