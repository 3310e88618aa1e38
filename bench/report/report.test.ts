import { renderMarkdown, type BenchReport } from './report';

const machine = {
  nproc: 2,
  cpuModel: 'AMD EPYC',
  memoryGiB: 23.5,
  node: 'v26.10.0',
  kernel: '6.18',
  loadAverageAtStart: 0.4,
};

function report(extra: Partial<BenchReport> = {}): BenchReport {
  return {
    startedAt: '2026-12-07T03:00:00.000Z',
    finishedAt: '2026-12-07T03:30:00.000Z',
    totalSeconds: 1800,
    mode: 'full',
    sections: ['limiter', 'gateway', 'accuracy', 'mcp'],
    profiled: false,
    machine,
    environment: {},
    settling: [],
    notes: [],
    ...extra,
  };
}

describe('the bench report of a run traced as the chart ships it', () => {
  it('names the command, the settings, the volume exported and what ran untraced', () => {
    const markdown = renderMarkdown(
      report({
        telemetry: {
          protocol: 'http/protobuf',
          sampler: 'parentbased_traceidratio',
          samplerArg: '0.1',
          exports: 40,
          bytes: 8 * 1024 * 1024,
        },
      }),
    );
    expect(markdown).toContain('`npm run bench -- --telemetry`');
    expect(markdown).toContain(
      '- Traced as the chart ships it (parentbased_traceidratio 0.1, http/protobuf): 40 trace exports of 8192 KiB ' +
        'in all, warm-up included. edge-auth, provider-proxy and the quota-actors only; nginx, the skeleton, ' +
        'Gubernator and mcp-server run as without it.',
    );
  });

  it('says nothing of tracing for an untraced run', () => {
    const markdown = renderMarkdown(report());
    expect(markdown).toContain('`npm run bench`');
    expect(markdown).not.toContain('Traced');
  });
});

describe('the command line of a bench report', () => {
  it('names the sections a run left out', () => {
    expect(renderMarkdown(report({ sections: ['gateway', 'accuracy', 'mcp'] }))).toContain(
      '`npm run bench -- --only gateway,accuracy,mcp`',
    );
    expect(renderMarkdown(report({ sections: ['gateway'] }))).toContain('`npm run bench -- --only gateway`');
  });
});
