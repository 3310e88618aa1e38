import { median, ratio, round } from '../lib/stats';
import type { HeapFigures } from './heap';

/** One measured run of one build: what the load saw and what the compared process spent. */
export interface BuildRun {
  round: number;
  /** Its place in the round's order, 0 first. */
  position: number;
  seconds: number;
  /** The answers the load counts a second: 2xx on the forward load, every answer on the refusal load. */
  answersPerSecond: number;
  non2xx: number;
  socketErrors: number;
  /** CPU of the compared process per answer counted (answersPerSecond). */
  microsPerAnswer: number;
  /** CPU of every process of the path per answer counted, by name (the compared one included), for context. */
  pathMicrosPerAnswer: Record<string, number>;
  /** The compared process's collector over the run. */
  heap: HeapFigures;
}

export interface BuildSummary {
  label: string;
  runs: BuildRun[];
  microsPerAnswer: { median: number; min: number; max: number };
  answersPerSecond: { median: number; min: number; max: number };
  oldSpaceMb: { median: number; min: number; max: number };
  markCompacts: { median: number; min: number; max: number };
  pauseMs: { median: number; min: number; max: number };
  /**
   * The median over rounds of this build's CPU per answer divided by the first build's in the same round: pairs
   * taken minutes apart on a noisy machine differ more than two builds do, pairs taken seconds apart less.
   */
  pairedRatio: number;
}

/**
 * The order of the builds in round `round`: each round starts one build further along, so that no build always runs
 * first (right after the settle) or last (after the others warmed the shared processes up).
 */
export function roundOrder(builds: number, round: number): number[] {
  return Array.from({ length: builds }, (_, i) => (round + i) % builds);
}

function spread(values: number[]): { median: number; min: number; max: number } {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: round(median(finite), 1), min: round(Math.min(...finite), 1), max: round(Math.max(...finite), 1) };
}

/** Per build, in the order given: the spread of its runs and its paired ratio against the first build. */
export function summarizeBuilds(builds: { label: string; runs: BuildRun[] }[]): BuildSummary[] {
  const baseline = new Map(builds[0]?.runs.map((run) => [run.round, run.microsPerAnswer]) ?? []);
  return builds.map(({ label, runs }) => ({
    label,
    runs,
    microsPerAnswer: spread(runs.map((run) => run.microsPerAnswer)),
    answersPerSecond: spread(runs.map((run) => run.answersPerSecond)),
    oldSpaceMb: spread(runs.map((run) => run.heap.oldSpaceMb)),
    markCompacts: spread(runs.map((run) => run.heap.markCompacts)),
    pauseMs: spread(runs.map((run) => run.heap.pauseMs)),
    pairedRatio: round(median(runs.map((run) => ratio(run.microsPerAnswer, baseline.get(run.round) ?? Number.NaN))), 3),
  }));
}

/** CPU per answer from a process's share of a core over a run: `cpuPercent` of 100 is one core for `seconds`. */
export function microsPerAnswer(cpuPercent: number, seconds: number, answers: number): number {
  return answers > 0 ? round(((cpuPercent / 100) * seconds * 1e6) / answers, 1) : Number.NaN;
}
