/** Latency summary in milliseconds. */
export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of a list of latencies (ms). */
export function summarize(latenciesMs: Float64Array): LatencySummary {
  if (latenciesMs.length === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

/** A growable list of doubles without boxing (hundreds of thousands of samples per run). */
export class SampleBuffer {
  private data = new Float64Array(1 << 16);
  private size = 0;

  push(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = value;
  }

  get length(): number {
    return this.size;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.size);
  }
}

/**
 * "The better of two runs" (docs/benchmarks.md), figure by figure: the highest throughput and the lowest
 * latency percentile among the runs. Every run's own figures stay in the JSON report.
 */
export function bestOf<T>(runs: T[], pick: (run: T) => number, direction: 'max' | 'min'): number {
  const values = runs.map(pick).filter((value) => Number.isFinite(value));
  if (values.length === 0) return Number.NaN;
  return direction === 'max' ? Math.max(...values) : Math.min(...values);
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ratio(numerator: number, denominator: number): number {
  return denominator > 0 && Number.isFinite(numerator) ? numerator / denominator : Number.NaN;
}

/** The median of the finite values; NaN when there are none. */
export function median(values: number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
