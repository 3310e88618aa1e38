import { compareWithSkeleton, type ProcessProfile } from './perf-compare';
import { reportRun } from './perf-report.fixture';
import { renderPerfMarkdown } from './perf-report';
import { categoryShares, type SymbolShare } from './perf-symbols';

const share = (percent: number, symbol: string, space: 'k' | '.' = '.'): SymbolShare => ({ percent, space, symbol });

const edgeAuth: ProcessProfile = {
  service: 'edge-auth (stream)',
  microsPerAnswer: 80,
  shares: [
    share(10, 'Builtins_KeyedLoadIC_Megamorphic'),
    share(5, 'JS:*handle /work/main/services/edge-auth/dist/gateway/gateway.handler.js:1:1'),
    share(20, 'finish_task_switch.isra.0', 'k'),
    share(2, 'JS:*parserOnHeadersComplete node:_http_common:71:35'),
  ],
};
const skeletonEdge: ProcessProfile = {
  service: 'skeleton edge',
  microsPerAnswer: 50,
  shares: [
    share(4, 'Builtins_KeyedLoadIC_Megamorphic'),
    share(2, 'JS:*main /work/main/bench/baselines/skeleton-edge.server.cjs:9:1'),
    share(40, 'finish_task_switch.isra.0', 'k'),
    share(4, 'JS:*parserOnHeadersComplete node:_http_common:71:35'),
  ],
};

describe('a gateway process against its skeleton twin', () => {
  const comparison = compareWithSkeleton(edgeAuth, skeletonEdge, 10);

  it('sets each symbol both run against itself, in µs per answer of each side', () => {
    const megamorphic = comparison.widest.find((gap) => gap.symbol === 'Builtins_KeyedLoadIC_Megamorphic');
    expect(megamorphic?.gatewayMicros).toBeCloseTo(8, 9);
    expect(megamorphic?.skeletonMicros).toBeCloseTo(2, 9);
  });

  it('lists only where the gateway spends more, widest gap first, and its own code as the skeleton never running it', () => {
    expect(comparison.widest.map((gap) => [gap.symbol, gap.gatewayMicros - gap.skeletonMicros])).toEqual([
      ['Builtins_KeyedLoadIC_Megamorphic', expect.closeTo(6, 9)],
      ['JS:*handle /work/main/services/edge-auth/dist/gateway/gateway.handler.js:1:1', expect.closeTo(4, 9)],
    ]);
    expect(compareWithSkeleton(edgeAuth, skeletonEdge, 1).widest).toHaveLength(1);
  });

  it('adds the symbols up per category, the skeleton’s own code with the service’s', () => {
    const row = (category: string) => comparison.categories.find((item) => item.category === category)!;
    expect(row('own code (the service, or the skeleton)')).toMatchObject({
      gatewayMicros: expect.closeTo(4, 9),
      skeletonMicros: expect.closeTo(1, 9),
    });
    expect(row('kernel')).toMatchObject({
      gatewayMicros: expect.closeTo(16, 9),
      skeletonMicros: expect.closeTo(20, 9),
    });
    expect(row("node's JavaScript")).toMatchObject({
      gatewayMicros: expect.closeTo(1.6, 9),
      skeletonMicros: expect.closeTo(2, 9),
    });
  });

  it('renders the skeleton run and the comparison in the report', () => {
    const profiled = (profile: ProcessProfile, pid: number) => ({ ...profiledOf(profile), pid });
    const markdown = renderPerfMarkdown({
      ...reportRun(),
      answersPerSecond: 7_000,
      processes: [profiled(edgeAuth, 1)],
      twin: {
        title: "the design's skeleton",
        answersPerSecond: 9_000.4,
        processes: [profiled(skeletonEdge, 2)],
        comparisons: [comparison],
      },
    });
    expect(markdown).toContain('# Where the CPU goes: perf under the forward load');
    expect(markdown).toContain("The design's skeleton under the same load: 9000 2xx answers a second.");
    expect(markdown).toMatch(/^\| skeleton edge \| 50\.0 µs \| 2\.0 % \(1\.00 µs\) \|/m);
    expect(markdown).toContain('## edge-auth (stream) against skeleton edge: 80.00 µs against 50.00 µs per answer');
    expect(markdown).toContain('| kernel | 16.00 µs | 20.00 µs | -4.00 µs |');
    expect(markdown).toContain(
      '| +6.00 µs | 8.00 µs | 2.00 µs | V8 builtins (inline caches, promises, calls) | `Builtins_KeyedLoadIC_Megamorphic` |',
    );
    expect(markdown).toContain('## skeleton edge (pid 2): the 4 symbols with the most self time');
  });

  it('renders the refusal load: every answer counted, edge-auth against the bare server writing its refusal', () => {
    const bare: ProcessProfile = { ...skeletonEdge, service: 'bare node:http, the edge refusal' };
    const markdown = renderPerfMarkdown({
      ...reportRun('v20', 'refusal'),
      answersPerSecond: 21_000.2,
      processes: [{ ...profiledOf(edgeAuth), pid: 1 }],
      twin: {
        title: "a bare node:http server writing edge-auth's own refusal",
        answersPerSecond: 40_000,
        processes: [{ ...profiledOf(bare), pid: 2 }],
        comparisons: [compareWithSkeleton(edgeAuth, bare, 3)],
      },
    });
    expect(markdown).toContain('# Where the CPU goes: perf under the refusal load');
    expect(markdown).toContain('Measured run: 21000 answers (nearly all 429) a second.');
    expect(markdown).toContain(
      "A bare node:http server writing edge-auth's own refusal under the same load: 40000 answers (nearly all 429) a second.",
    );
    expect(markdown).toContain(
      '## edge-auth (stream) against bare node:http, the edge refusal: 80.00 µs against 50.00 µs per answer',
    );
  });
});

function profiledOf(profile: ProcessProfile) {
  return {
    service: profile.service,
    microsPerAnswer: profile.microsPerAnswer,
    categories: categoryShares(profile.shares),
    top: profile.shares,
  };
}
