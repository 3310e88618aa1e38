import type { MachineInfo } from '../lib/machine';
import { CATEGORIES, categoryOf, type Category, type SymbolShare } from './perf-symbols';

export interface ProfiledProcess {
  service: string;
  pid: number;
  /** The process's CPU per 2xx answer over the load run (/proc), which the shares divide up. */
  microsPerAnswer: number;
  categories: Record<Category, number>;
  /** The symbols with the most self time, largest first. */
  top: SymbolShare[];
}

export interface PerfReport {
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  method: string;
  okPerSecond: number;
  processes: ProfiledProcess[];
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
/** A share of the process's samples, and what it is of its CPU per answer. */
const shareCell = (percent: number, microsPerAnswer: number) =>
  `${fixed(percent)} % (${fixed((percent / 100) * microsPerAnswer, 2)} µs)`;

export function renderPerfMarkdown(report: PerfReport): string {
  const { machine } = report;
  const lines = [
    '# Where the CPU goes: perf under the forward load',
    '',
    `${report.startedAt} to ${report.finishedAt}. Machine: ${machine.nproc} cores, ${machine.cpuModel}, ` +
      `${machine.memoryGiB} GiB, Node ${machine.node}, kernel ${machine.kernel}, load average ` +
      `${machine.loadAverageAtStart} at the start.`,
    '',
    `Method: ${report.method}`,
    '',
    `Measured run: ${Math.round(report.okPerSecond)} 2xx answers a second.`,
    '',
    "Self time by category: the share of each process's samples, and in brackets that share of its CPU per answer.",
    '',
    `| process | CPU per answer | ${CATEGORIES.join(' | ')} |`,
    `|---|---:|${CATEGORIES.map(() => '---:').join('|')}|`,
    ...report.processes.map(
      (process) =>
        `| ${process.service} | ${fixed(process.microsPerAnswer)} µs | ` +
        `${CATEGORIES.map((category) => shareCell(process.categories[category], process.microsPerAnswer)).join(' | ')} |`,
    ),
  ];
  for (const process of report.processes) {
    lines.push(
      '',
      `## ${process.service} (pid ${process.pid}): the ${process.top.length} symbols with the most self time`,
      '',
      '| self | category | symbol |',
      '|---:|---|---|',
      ...process.top.map(
        (share) =>
          `| ${shareCell(share.percent, process.microsPerAnswer)} | ${categoryOf(share)} | ` +
          `\`${share.symbol.replace(/`/g, "'").replace(/\|/g, '\\|')}\` |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
