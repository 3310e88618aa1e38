import type { MachineInfo } from '../lib/machine';
import { median } from '../lib/stats';
import type { BuildSummary } from './rounds';

export interface BuildsReport {
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  service: string;
  /** The forward load (2xx answers counted), or the refusal bench's (every answer counted, nearly all 429). */
  load: 'forward' | 'refusal';
  method: string;
  target: string;
  builds: BuildSummary[];
  notes: string[];
}

const figure = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const range = (spread: { median: number; min: number; max: number }, digits = 1) =>
  `${figure(spread.median, digits)} (${figure(spread.min, digits)}-${figure(spread.max, digits)})`;

/** Median CPU per answer of every process of the path, by process, for each build. */
function pathTable(builds: BuildSummary[]): string[] {
  const names = [
    ...new Set(builds.flatMap((build) => build.runs.flatMap((run) => Object.keys(run.pathMicrosPerAnswer)))),
  ];
  const rows = builds.map((build) => {
    const cells = names.map((name) => figure(median(build.runs.map((run) => run.pathMicrosPerAnswer[name] ?? 0))));
    return `| ${build.label} | ${cells.join(' | ')} |`;
  });
  return [`| Build | ${names.join(' | ')} |`, `|---|${names.map(() => '---:').join('|')}|`, ...rows];
}

export function renderBuildsMarkdown(report: BuildsReport): string {
  const { machine } = report;
  const counted = report.load === 'refusal' ? 'answers/s' : '2xx/s';
  const lines = [
    `# ${report.service}: builds compared`,
    '',
    `${report.startedAt} to ${report.finishedAt}. Machine: ${machine.nproc} cores, ${machine.cpuModel}, ` +
      `${machine.memoryGiB} GiB, Node ${machine.node}, kernel ${machine.kernel}, load average ${machine.loadAverageAtStart} ` +
      'at the start.',
    '',
    `Method: ${report.method}`,
    '',
    `Load: ${report.target}`,
    '',
    `| Build | ${report.service} CPU per answer, µs: median (min-max) | x the first build, paired by round | ${counted}: median (min-max) | old space after a run, MB | mark-compacts in a run | collector pauses in a run, ms |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...report.builds.map(
      (build) =>
        `| ${build.label} | ${range(build.microsPerAnswer)} | ${figure(build.pairedRatio, 3)} | ${range(build.answersPerSecond, 0)} | ${range(build.oldSpaceMb)} | ${range(build.markCompacts)} | ${range(build.pauseMs)} |`,
    ),
    '',
    'CPU per answer of every process on the path (medians, µs):',
    '',
    ...pathTable(report.builds),
    '',
    'Every run:',
    '',
    `| Round | Build | Order in the round | ${counted} | µs per answer | non-2xx | socket errors | old space, MB | mark-compacts | pauses, ms |`,
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.builds
      .flatMap((build) => build.runs.map((run) => ({ build: build.label, run })))
      .sort((a, b) => a.run.round - b.run.round || a.run.position - b.run.position)
      .map(
        ({ build, run }) =>
          `| ${run.round + 1} | ${build} | ${run.position + 1} | ${figure(run.answersPerSecond, 0)} | ${figure(run.microsPerAnswer)} | ${run.non2xx} | ${run.socketErrors} | ${figure(run.heap.oldSpaceMb)} | ${figure(run.heap.markCompacts, 0)} | ${figure(run.heap.pauseMs)} |`,
      ),
  ];
  if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
