import type { PerfReport } from './perf-report';

/** What every rendered report in the bench:perf tests shares: when it ran, on what, and how. */
export function reportRun(
  node = 'v20',
  load: PerfReport['load'] = 'forward',
): Pick<PerfReport, 'startedAt' | 'finishedAt' | 'machine' | 'method' | 'load'> {
  return {
    load,
    startedAt: '2026-12-06T04:00:00.000Z',
    finishedAt: '2026-12-06T04:01:00.000Z',
    machine: { nproc: 2, cpuModel: 'Test CPU', memoryGiB: 24, node, kernel: '6', loadAverageAtStart: 0.5 },
    method: 'the method',
  };
}
