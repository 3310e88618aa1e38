import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileSummary {
  file: string;
  pid: number;
  seq: number;
  sampledSeconds: number;
  /** % of the sampled time the process was not idle. */
  busyShare: number;
  /** Self time by function, highest first. */
  functions: { name: string; where: string; selfPercent: number }[];
  /** Self time by package (node_modules/<pkg>) or by repo folder, highest first. */
  origins: { origin: string; selfPercent: number }[];
}

function originOf(url: string): string {
  if (!url) return '(native / V8)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const repo = /\/(libs|services|bench)\/([^/]+)\//.exec(url);
  if (repo) return `${repo[1]}/${repo[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url;
}

/** Summarizes a V8 .cpuprofile (written by node --cpu-prof) by self time. */
export async function summarizeProfile(path: string, top = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  // Percentages of the time the process was busy: idle samples say nothing about where the work went.
  const isIdle = (node: ProfileNode) => node.callFrame.functionName === '(idle)';
  const totalHits = profile.nodes.reduce((sum, node) => sum + (isIdle(node) ? 0 : (node.hitCount ?? 0)), 0) || 1;
  const idleHits = profile.nodes.reduce((sum, node) => sum + (isIdle(node) ? (node.hitCount ?? 0) : 0), 0);
  const byFunction = new Map<string, { name: string; where: string; hits: number }>();
  const byOrigin = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0 || isIdle(node)) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const where = url
      ? `${url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|libs|services|bench)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${name}@${where}`;
    const entry = byFunction.get(key) ?? { name, where, hits: 0 };
    entry.hits += hits;
    byFunction.set(key, entry);
    const origin = originOf(url);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + hits);
  }
  const percent = (hits: number) => Math.round((hits / totalHits) * 1000) / 10;
  return {
    file: path,
    pid: Number(/CPU\.\d+\.\d+\.(\d+)\.\d+\.(\d+)\.cpuprofile$/.exec(path)?.[1] ?? 0),
    seq: Number(/CPU\.\d+\.\d+\.(\d+)\.\d+\.(\d+)\.cpuprofile$/.exec(path)?.[2] ?? 0),
    sampledSeconds: (profile.endTime - profile.startTime) / 1e6,
    busyShare: Math.round((totalHits / Math.max(1, totalHits + idleHits)) * 1000) / 10,
    functions: [...byFunction.values()]
      .sort((a, b) => b.hits - a.hits)
      .slice(0, top)
      .map((entry) => ({ name: entry.name, where: entry.where, selfPercent: percent(entry.hits) })),
    origins: [...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([origin, hits]) => ({ origin, selfPercent: percent(hits) })),
  };
}

export async function summarizeProfiles(dir: string): Promise<ProfileSummary[]> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith('.cpuprofile'));
  return Promise.all(files.map((file) => summarizeProfile(join(dir, file))));
}
