import { findSamples, parsePrometheusText, type MetricSample } from '@gateway/testing';

/** What the compared process's collector did over one run, from its own /metrics (prom-client's default metrics). */
export interface HeapFigures {
  /** Old space in use when the run ended, in MB: what the collector has to mark. */
  oldSpaceMb: number;
  /** Mark-compacts during the run (`kind="major"`). */
  markCompacts: number;
  /** Pauses of every kind during the run, in ms of the main thread. */
  pauseMs: number;
}

const GC = 'gateway_nodejs_gc_duration_seconds';
const HEAP_SPACE = 'gateway_nodejs_heap_space_size_used_bytes';

export function heapFigures(before: MetricSample[], after: MetricSample[]): HeapFigures {
  const total = (samples: MetricSample[], name: string, labels: Record<string, string> = {}) =>
    findSamples(samples, name, labels).reduce((sum, sample) => sum + sample.value, 0);
  const oldSpace = findSamples(after, HEAP_SPACE, { space: 'old' });
  return {
    oldSpaceMb: oldSpace.length === 0 ? Number.NaN : oldSpace[0]!.value / 1e6,
    markCompacts: total(after, `${GC}_count`, { kind: 'major' }) - total(before, `${GC}_count`, { kind: 'major' }),
    pauseMs: (total(after, `${GC}_sum`) - total(before, `${GC}_sum`)) * 1000,
  };
}

/** The samples of a service's /metrics, or none if it cannot be read (the figures are then n/a, not the run). */
export async function scrapeMetrics(httpUrl: string): Promise<MetricSample[]> {
  try {
    const response = await fetch(`${httpUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return response.ok ? parsePrometheusText(await response.text()) : [];
  } catch {
    return [];
  }
}
