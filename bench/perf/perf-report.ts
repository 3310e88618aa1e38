import type { MachineInfo } from '../lib/machine';
import { tracedRunLine, type ChartTracing } from '../lib/chart-tracing';
import type { OtlpReceipts } from '../lib/otlp-receiver';
import type { SkeletonComparison } from './perf-compare';
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

/** What the gateway's processes were set against under the same load, and each of them against its twin. */
export interface TwinRun {
  /** "the design's skeleton" (--skeleton), or the bare server writing edge-auth's refusal (--refusal). */
  title: string;
  answersPerSecond: number;
  processes: ProfiledProcess[];
  comparisons: SkeletonComparison[];
}

export interface PerfReport {
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  /** The forward load (2xx answers), or the refusal bench's (every answer, nearly all 429s held at the edge). */
  load: 'forward' | 'refusal';
  method: string;
  /** Answers of the measured run a second: 2xx on the forward load, every answer on the refusal load. */
  answersPerSecond: number;
  processes: ProfiledProcess[];
  /** With --skeleton or --refusal: the run it was set against under the same load. */
  twin?: TwinRun;
  /** With --telemetry: the chart's tracing settings the services ran with, and what they exported over the whole run. */
  telemetry?: ChartTracing & OtlpReceipts;
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
/** A share of the process's samples, and what it is of its CPU per answer. */
const shareCell = (percent: number, microsPerAnswer: number) =>
  `${fixed(percent)} % (${fixed((percent / 100) * microsPerAnswer, 2)} µs)`;

const symbolCell = (symbol: string) => `\`${symbol.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
const micros = (value: number) => `${fixed(value, 2)} µs`;

/** Self time by category, one row per process. */
function categoryTable(processes: ProfiledProcess[]): string[] {
  return [
    `| process | CPU per answer | ${CATEGORIES.join(' | ')} |`,
    `|---|---:|${CATEGORIES.map(() => '---:').join('|')}|`,
    ...processes.map(
      (process) =>
        `| ${process.service} | ${fixed(process.microsPerAnswer)} µs | ` +
        `${CATEGORIES.map((category) => shareCell(process.categories[category], process.microsPerAnswer)).join(' | ')} |`,
    ),
  ];
}

/** A gateway process against its skeleton twin: per category, then the symbols where it spends the most more. */
function comparisonLines(comparison: SkeletonComparison): string[] {
  const gap = (gateway: number, skeleton: number) =>
    `${gateway >= skeleton ? '+' : ''}${fixed(gateway - skeleton, 2)} µs`;
  return [
    '',
    `## ${comparison.gateway} against ${comparison.skeleton}: ${micros(comparison.gatewayMicros)} against ` +
      `${micros(comparison.skeletonMicros)} per answer`,
    '',
    `| category | ${comparison.gateway} | ${comparison.skeleton} | more |`,
    '|---|---:|---:|---:|',
    ...comparison.categories.map(
      (row) =>
        `| ${row.category} | ${micros(row.gatewayMicros)} | ${micros(row.skeletonMicros)} | ` +
        `${gap(row.gatewayMicros, row.skeletonMicros)} |`,
    ),
    '',
    `The ${comparison.widest.length} symbols where ${comparison.gateway} spends the most more per answer:`,
    '',
    `| more | ${comparison.gateway} | ${comparison.skeleton} | category | symbol |`,
    '|---:|---:|---:|---|---|',
    ...comparison.widest.map(
      (symbol) =>
        `| ${gap(symbol.gatewayMicros, symbol.skeletonMicros)} | ${micros(symbol.gatewayMicros)} | ` +
        `${micros(symbol.skeletonMicros)} | ${symbol.category} | ${symbolCell(symbol.symbol)} |`,
    ),
  ];
}

export function renderPerfMarkdown(report: PerfReport): string {
  const { machine } = report;
  const answers = report.load === 'refusal' ? 'answers (nearly all 429)' : '2xx answers';
  const lines = [
    `# Where the CPU goes: perf under the ${report.load} load`,
    '',
    `${report.startedAt} to ${report.finishedAt}. Machine: ${machine.nproc} cores, ${machine.cpuModel}, ` +
      `${machine.memoryGiB} GiB, Node ${machine.node}, kernel ${machine.kernel}, load average ` +
      `${machine.loadAverageAtStart} at the start.`,
    '',
    `Method: ${report.method}`,
    '',
    `Measured run: ${Math.round(report.answersPerSecond)} ${answers} a second.`,
    '',
    ...(report.telemetry ? [tracedRunLine(report.telemetry), ''] : []),
    "Self time by category: the share of each process's samples, and in brackets that share of its CPU per answer.",
    '',
    ...categoryTable(report.processes),
  ];
  if (report.twin) {
    const { twin } = report;
    const title = twin.title.charAt(0).toUpperCase() + twin.title.slice(1);
    lines.push(
      '',
      `${title} under the same load: ${Math.round(twin.answersPerSecond)} ${answers} a second.`,
      '',
      ...categoryTable(twin.processes),
    );
    for (const comparison of twin.comparisons) lines.push(...comparisonLines(comparison));
  }
  const profiled = [...report.processes, ...(report.twin?.processes ?? [])];
  for (const process of profiled) {
    lines.push(
      '',
      `## ${process.service} (pid ${process.pid}): the ${process.top.length} symbols with the most self time`,
      '',
      '| self | category | symbol |',
      '|---:|---|---|',
      ...process.top.map(
        (share) =>
          `| ${shareCell(share.percent, process.microsPerAnswer)} | ${categoryOf(share)} | ${symbolCell(share.symbol)} |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
