import { findSamples, type MetricSample } from '@gateway/testing';
import { collectorFigures, scrapeMetrics } from '../lib/edge-stages';

/** What the compared process's collector did over one run, from its own /metrics (prom-client's default metrics). */
export interface HeapFigures {
  /** Old space in use when the run ended, in MB: what the collector has to mark. */
  oldSpaceMb: number;
  /** Mark-compacts during the run (`kind="major"`). */
  markCompacts: number;
  /** Pauses of every kind during the run, in ms of the main thread. */
  pauseMs: number;
}

const MARK_COMPACTS = 'gateway_nodejs_gc_duration_seconds_count';
const HEAP_SPACE = 'gateway_nodejs_heap_space_size_used_bytes';

export function heapFigures(before: MetricSample[], after: MetricSample[]): HeapFigures {
  const majors = (samples: MetricSample[]) => findSamples(samples, MARK_COMPACTS, { kind: 'major' })[0]?.value ?? 0;
  const oldSpace = findSamples(after, HEAP_SPACE, { space: 'old' });
  return {
    oldSpaceMb: oldSpace.length === 0 ? Number.NaN : oldSpace[0]!.value / 1e6,
    markCompacts: majors(after) - majors(before),
    pauseMs: collectorFigures(before, after).totalMs,
  };
}

/** The samples of a service's /metrics, or none if it cannot be read (the figures are then n/a, not the run). */
export async function scrapeMetricsOrNone(httpUrl: string): Promise<MetricSample[]> {
  return scrapeMetrics(httpUrl).catch(() => []);
}
