import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
  /** 1-minute load average when the run started: other people's work on the same cores shows here. */
  loadAverageAtStart: number;
}

export function describeMachine(): MachineInfo {
  let cpuModel = 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((candidate) => candidate.startsWith('model name'));
    if (line) cpuModel = line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux: keep "unknown"
  }
  return {
    nproc: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: release(),
    loadAverageAtStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}
