import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';

/** CPU use of one process over a measured window, in % of one core (200 % = both cores of this machine). */
export interface ProcessCpu {
  name: string;
  pid: number;
  cpuPercent: number;
}

export interface CpuUsage {
  seconds: number;
  /** The benchmark's own processes (this one and its descendants: services, NATS, FerretDB, nginx, load tools). */
  processes: ProcessCpu[];
  /** Whole machine busy time in % of one core; minus ours it is what other people's work took. */
  machinePercent: number;
  othersPercent: number;
}

const TICKS_PER_SECOND = 100;

function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function nameOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const service = argv
      .map((arg) => /services\/([^/]+)\/(?:src\/main\.ts|dist\/main\.js)$/.exec(arg)?.[1])
      .find(Boolean);
    if (service === 'edge-auth') {
      const transport = /(?:^|\0)PROVIDER_PROXY_TRANSPORT=(\w+)/.exec(
        readFileSync(`/proc/${pid}/environ`, 'utf8'),
      )?.[1];
      return `edge-auth (${transport ?? 'stream'})`;
    }
    if (service) return service;
    const script = argv.find((arg) => arg.startsWith('bench/') || arg.includes('/bench/'));
    if (script) return basename(script).replace(/\.(ts|cjs)$/, '');
    return basename(argv[0] ?? String(pid));
  } catch {
    return String(pid);
  }
}

function machineBusyTicks(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait.
    const total = cpu.reduce((sum, value) => sum + value, 0);
    return total - (cpu[3] ?? 0) - (cpu[4] ?? 0);
  } catch {
    return Number.NaN;
  }
}

/** This process and all its descendants (services, NATS, FerretDB, nginx workers, load tools). */
function familyOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const ppid = readStat(pid)?.ppid;
    if (ppid === undefined) continue;
    const siblings = children.get(ppid);
    if (siblings) siblings.push(pid);
    else children.set(ppid, [pid]);
  }
  const family: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    family.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return family;
}

/**
 * Measures where the CPU went during a run: this process and all its descendants (Linux /proc), sampled every
 * 200 ms so that a load generator that exits before stop() still counts (up to its last sample).
 */
export class CpuMeter {
  private readonly startedAt = process.hrtime.bigint();
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, { ticks: number; name: string }>();
  private readonly machineStart = machineBusyTicks();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 200);
  }

  private sample(initial: boolean): void {
    for (const pid of familyOf(process.pid)) {
      const stat = readStat(pid);
      if (!stat) continue;
      // A process first seen after the start began during the window: it counts from zero.
      if (!this.first.has(pid)) this.first.set(pid, initial ? stat.ticks : 0);
      const known = this.last.get(pid);
      this.last.set(pid, {
        ticks: stat.ticks,
        name: known?.name ?? (pid === process.pid ? 'bench (main)' : nameOf(pid)),
      });
    }
  }

  stop(): CpuUsage {
    this.sample(false);
    clearInterval(this.timer);
    const seconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    const percent = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 10;
    const processes: ProcessCpu[] = [...this.last].map(([pid, { ticks, name }]) => ({
      name,
      pid,
      cpuPercent: percent(ticks - (this.first.get(pid) ?? 0)),
    }));
    processes.sort((a, b) => b.cpuPercent - a.cpuPercent);
    const machinePercent = percent(machineBusyTicks() - this.machineStart);
    const ours = processes.reduce((sum, item) => sum + item.cpuPercent, 0);
    return {
      seconds,
      processes: processes.filter((item) => item.cpuPercent >= 0.5),
      machinePercent,
      othersPercent: Math.max(0, Math.round((machinePercent - ours) * 10) / 10),
    };
  }
}

/** CPU % per process name (nginx workers, several edges of one kind add up). */
export function cpuByName(usage: CpuUsage): Map<string, number> {
  const byName = new Map<string, number>();
  for (const item of usage.processes) byName.set(item.name, (byName.get(item.name) ?? 0) + item.cpuPercent);
  return new Map([...byName].sort((a, b) => b[1] - a[1]));
}

export function formatCpu(usage: CpuUsage | undefined): string {
  if (!usage) return 'n/a';
  const ours = [...cpuByName(usage)].map(([name, percent]) => `${name} ${Math.round(percent)}%`).join(', ');
  return `${ours}; others on the machine ${Math.round(usage.othersPercent)}%`;
}
