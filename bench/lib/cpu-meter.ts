import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';

/** CPU use of one process over a measured window, in % of one core (200 % = both cores of this machine). */
export interface ProcessCpu {
  name: string;
  pid: number;
  cpuPercent: number;
  /**
   * Context switches of all its threads over the window (those alive when it ended), voluntary and not: each is a
   * wake-up or a preemption. Absent in reports made before it was counted.
   */
  contextSwitches?: number;
}

export interface CpuUsage {
  seconds: number;
  /** The benchmark's own processes (this one and its descendants: services, NATS, FerretDB, nginx, load tools). */
  processes: ProcessCpu[];
  /** Whole machine busy time in % of one core; minus ours it is what other people's work took. */
  machinePercent: number;
  othersPercent: number;
  /**
   * Time the hypervisor gave to something else while this machine wanted its cores (steal), in % of one core; absent
   * in older reports.
   */
  stealPercent?: number;
  /** Context switches per second on the whole machine (absent in older reports). */
  contextSwitchesPerSecond?: number;
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

interface MachineCounters {
  busyTicks: number;
  stealTicks: number;
  contextSwitches: number;
}

function machineCounters(): MachineCounters {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    const cpu = lines[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait.
    const total = cpu.reduce((sum, value) => sum + value, 0);
    const ctxt = lines.find((line) => line.startsWith('ctxt '));
    return {
      busyTicks: total - (cpu[3] ?? 0) - (cpu[4] ?? 0),
      stealTicks: cpu[7] ?? Number.NaN,
      contextSwitches: ctxt ? Number(ctxt.slice(5)) : Number.NaN,
    };
  } catch {
    return { busyTicks: Number.NaN, stealTicks: Number.NaN, contextSwitches: Number.NaN };
  }
}

/** Voluntary and involuntary context switches of every thread the process has now. */
function contextSwitchesOf(pid: number): number | undefined {
  try {
    let switches = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8');
      for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(match[1]);
    }
    return switches;
  } catch {
    return undefined;
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
 * 200 ms so that a load generator that exits before stop() still counts (up to its last sample). Context switches
 * are read at the start and at the end only (a thread's count is gone with it), so a process that exits before
 * stop() has none.
 */
export class CpuMeter {
  private readonly startedAt = process.hrtime.bigint();
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, { ticks: number; name: string }>();
  private readonly firstSwitches = new Map<number, number>();
  private readonly machineStart = machineCounters();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.sample(true);
    for (const pid of this.last.keys()) {
      const switches = contextSwitchesOf(pid);
      if (switches !== undefined) this.firstSwitches.set(pid, switches);
    }
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
    const processes: ProcessCpu[] = [...this.last].map(([pid, { ticks, name }]) => {
      const item: ProcessCpu = { name, pid, cpuPercent: percent(ticks - (this.first.get(pid) ?? 0)) };
      const switches = contextSwitchesOf(pid);
      // A process that began during the window counts from zero, as its CPU does; a thread that ended takes its
      // count along, so the difference is never allowed below zero.
      if (switches !== undefined) item.contextSwitches = Math.max(0, switches - (this.firstSwitches.get(pid) ?? 0));
      return item;
    });
    processes.sort((a, b) => b.cpuPercent - a.cpuPercent);
    const machineEnd = machineCounters();
    const machinePercent = percent(machineEnd.busyTicks - this.machineStart.busyTicks);
    const ours = processes.reduce((sum, item) => sum + item.cpuPercent, 0);
    return {
      seconds,
      processes: processes.filter((item) => item.cpuPercent >= 0.5),
      machinePercent,
      othersPercent: Math.max(0, Math.round((machinePercent - ours) * 10) / 10),
      stealPercent: percent(machineEnd.stealTicks - this.machineStart.stealTicks),
      contextSwitchesPerSecond: Math.round((machineEnd.contextSwitches - this.machineStart.contextSwitches) / seconds),
    };
  }
}

/** A figure summed per process name (nginx workers, several edges of one kind add up); processes without it skipped. */
function sumByName(usage: CpuUsage, figure: (item: ProcessCpu) => number | undefined): Map<string, number> {
  const byName = new Map<string, number>();
  for (const item of usage.processes) {
    const value = figure(item);
    if (value !== undefined) byName.set(item.name, (byName.get(item.name) ?? 0) + value);
  }
  return byName;
}

/** Context switches per process name over the window, for the processes that counted them. */
export function contextSwitchesByName(usage: CpuUsage): Map<string, number> {
  return sumByName(usage, (item) => item.contextSwitches);
}

/** CPU % per process name, busiest first. */
export function cpuByName(usage: CpuUsage): Map<string, number> {
  return new Map([...sumByName(usage, (item) => item.cpuPercent)].sort((a, b) => b[1] - a[1]));
}

export function formatCpu(usage: CpuUsage | undefined): string {
  if (!usage) return 'n/a';
  const ours = [...cpuByName(usage)].map(([name, percent]) => `${name} ${Math.round(percent)}%`).join(', ');
  return `${ours}; others on the machine ${Math.round(usage.othersPercent)}%`;
}
