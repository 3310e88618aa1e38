import { parsePrometheusText } from '@gateway/testing';
import { parseBuildsArgs } from './args';
import { heapFigures } from './heap';
import { renderBuildsMarkdown, type BuildsReport } from './report';
import { median } from '../lib/stats';
import { microsPerAnswer, roundOrder, summarizeBuilds, type BuildRun } from './rounds';

const run = (round: number, position: number, micros: number, ok = 6_000): BuildRun => ({
  round,
  position,
  seconds: 5,
  answersPerSecond: ok,
  non2xx: 0,
  socketErrors: 0,
  microsPerAnswer: micros,
  pathMicrosPerAnswer: { 'edge-auth [x]': micros, 'quota-actor': 20 },
  heap: { oldSpaceMb: micros / 2, markCompacts: round, pauseMs: 12.5 },
});

describe('the order of the builds in a round', () => {
  it('starts one build further along each round, so each build takes every place equally often', () => {
    expect([0, 1, 2].map((round) => roundOrder(3, round))).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
    for (let round = 0; round < 6; round++) expect([...roundOrder(3, round)].sort()).toEqual([0, 1, 2]);
  });
});

describe('the summary of the runs', () => {
  it('takes medians of odd and even counts and ignores runs without a figure', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([Number.NaN, 5])).toBe(5);
    expect(median([])).toBeNaN();
  });

  it('turns a share of a core into CPU per answer, and has no figure without answers', () => {
    // Half a core for 5 s is 2.5 s of CPU; over 50,000 answers, 50 µs each.
    expect(microsPerAnswer(50, 5, 50_000)).toBe(50);
    expect(microsPerAnswer(50, 5, 0)).toBeNaN();
  });

  it('pairs each build with the first one round by round, so a slow round does not count as a slow build', () => {
    const [first, second] = summarizeBuilds([
      { label: 'before', runs: [run(0, 0, 60), run(1, 1, 90), run(2, 0, 62)] },
      // Round 1 was slow for both: paired, the second build is 0.9x in every round.
      { label: 'after', runs: [run(0, 1, 54), run(1, 0, 81), run(2, 1, 55.8)] },
    ]);
    expect(first!.pairedRatio).toBe(1);
    expect(second!.pairedRatio).toBe(0.9);
    expect(second!.microsPerAnswer).toEqual({ median: 55.8, min: 54, max: 81 });
    expect(first!.answersPerSecond).toEqual({ median: 6_000, min: 6_000, max: 6_000 });
  });

  it('renders every build, every run in round order and the path by process', () => {
    const builds = summarizeBuilds([
      { label: 'before', runs: [run(0, 0, 60), run(1, 1, 64)] },
      { label: 'after', runs: [run(0, 1, 54), run(1, 0, 57.6)] },
    ]);
    const markdown = renderBuildsMarkdown(buildsReport({ builds, notes: ['a note'] }));
    expect(markdown).toContain('| x the first build, paired by round | 2xx/s: median (min-max) |');
    expect(markdown).toContain(
      '| before | 62.0 (60.0-64.0) | 1.000 | 6000 (6000-6000) | 31.0 (30.0-32.0) | 0.5 (0.0-1.0) |',
    );
    expect(markdown).toContain(
      '| after | 55.8 (54.0-57.6) | 0.900 | 6000 (6000-6000) | 27.9 (27.0-28.8) | 0.5 (0.0-1.0) |',
    );
    expect(markdown).toContain('| 2 | after | 1 | 6000 | 57.6 | 0 | 0 | 28.8 | 1 | 12.5 |');
    expect(markdown).toContain('| Build | edge-auth [x] | quota-actor |');
    const rows = markdown.split('\n').filter((line) => /^\| \d \| (before|after) \| \d \|/.test(line));
    expect(rows.map((line) => line.split(' | ').slice(0, 3).join(' | '))).toEqual([
      '| 1 | before | 1',
      '| 1 | after | 2',
      '| 2 | after | 1',
      '| 2 | before | 2',
    ]);
    expect(markdown).toContain('- a note');
  });

  it('counts every answer under the refusal load, and says so', () => {
    const builds = summarizeBuilds([
      { label: 'before', runs: [run(0, 0, 30)] },
      { label: 'after', runs: [run(0, 1, 27)] },
    ]);
    const markdown = renderBuildsMarkdown(buildsReport({ builds, load: 'refusal', target: 'the refusal load' }));
    expect(markdown).toContain('| x the first build, paired by round | answers/s: median (min-max) |');
    expect(markdown).toContain('| Round | Build | Order in the round | answers/s | µs per answer |');
    expect(markdown).toContain('| after | 27.0 (27.0-27.0) | 0.900 |');
  });
});

describe('the collector of the compared process', () => {
  const metrics = (major: number, minor: number, seconds: number, oldBytes?: number) =>
    parsePrometheusText(
      [
        '# TYPE gateway_nodejs_gc_duration_seconds histogram',
        `gateway_nodejs_gc_duration_seconds_sum{kind="major"} ${seconds / 2}`,
        `gateway_nodejs_gc_duration_seconds_count{kind="major"} ${major}`,
        `gateway_nodejs_gc_duration_seconds_sum{kind="minor"} ${seconds / 2}`,
        `gateway_nodejs_gc_duration_seconds_count{kind="minor"} ${minor}`,
        'gateway_nodejs_heap_space_size_used_bytes{space="new"} 9000000',
        ...(oldBytes === undefined ? [] : [`gateway_nodejs_heap_space_size_used_bytes{space="old"} ${oldBytes}`]),
      ].join('\n'),
    );

  it('reads the old space at the end of the run and what the collector did during it', () => {
    const figures = heapFigures(metrics(3, 40, 0.2, 20e6), metrics(5, 90, 0.35, 34_500_000));
    expect(figures.oldSpaceMb).toBe(34.5);
    expect(figures.markCompacts).toBe(2);
    expect(figures.pauseMs).toBeCloseTo(150, 6);
  });

  it('has no old space figure when the process did not answer its metrics', () => {
    expect(heapFigures([], []).oldSpaceMb).toBeNaN();
    expect(heapFigures(metrics(1, 1, 0), metrics(1, 1, 0)).oldSpaceMb).toBeNaN();
  });
});

describe('the command line', () => {
  it('takes builds, a service and bounded counts, inline or as the next argument', () => {
    expect(parseBuildsArgs(['--builds', 'main~1,.', '--service=provider-proxy', '--rounds', '3'])).toEqual({
      builds: ['main~1', '.'],
      service: 'provider-proxy',
      rounds: 3,
      warmupRounds: 2,
      seconds: 5,
      keys: 256,
      connections: 64,
      telemetry: false,
      refusal: false,
    });
    expect(parseBuildsArgs(['--builds', 'main~1,.', '--service', 'quota-actor'])).toMatchObject({
      service: 'quota-actor',
    });
    expect(parseBuildsArgs(['--telemetry', '--builds', 'main~1,.'])).toMatchObject({ telemetry: true });
    expect(() => parseBuildsArgs(['--builds', 'main~1,.', '--telemetry=yes'])).toThrow(/unknown argument --telemetry/);
    expect(parseBuildsArgs(['--refusal', '--builds', 'main~1,.'])).toMatchObject({
      refusal: true,
      service: 'edge-auth',
    });
    expect(parseBuildsArgs(['-h'])).toBe('help');
  });

  it.each([
    [['--builds', 'main'], /at least two refs/],
    [['--builds', 'a,a'], /names a ref twice/],
    [['--builds', 'a,,b'], /empty or bad ref/],
    [['--builds', 'a,--rounds'], /empty or bad ref/],
    [['--builds', 'a,b', '--service', 'nats-server'], /--service takes edge-auth\|provider-proxy\|quota-actor/],
    [['--builds', 'a,b', '--rounds', '0'], /whole number from 1 to 50/],
    [['--builds', 'a,b', '--seconds', '2.5'], /whole number from 1 to 60/],
    [['--builds', 'a,b', '--keys', '5000'], /whole number from 1 to 1024/],
    [['--builds', 'a,b', '--quick'], /unknown argument --quick/],
    [['--builds'], /--builds needs a value/],
    [['--builds', 'a,b', '--refusal', '--service', 'quota-actor'], /--refusal compares edge-auth/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseBuildsArgs(argv)).toThrow(message);
  });
});

function buildsReport(fields: Pick<BuildsReport, 'builds'> & Partial<BuildsReport>): BuildsReport {
  return {
    startedAt: '2026-11-28T12:00:00.000Z',
    finishedAt: '2026-11-28T12:05:00.000Z',
    machine: { nproc: 2, cpuModel: 'Test CPU', memoryGiB: 24, node: 'v20', kernel: '6', loadAverageAtStart: 0.5 },
    service: 'edge-auth',
    load: 'forward',
    method: 'the method',
    target: 'the load',
    notes: [],
    ...fields,
  };
}
