/** Issue 17's bounds, each on a figure measured against a baseline in the same run (the report states which hold). */
export const TARGET_BOUNDS = {
  /** Added p99 at the fixed rate of the latency target, ms: at most. */
  addedP99Ms: 10,
  /** Saturated full-path throughput against nginx's: at least. */
  throughputVsNginx: 0.3,
  /** The gateway's CPU per answer against nginx's path, the sandbox left out: at most. */
  cpuVsNginx: 3,
  /** Refusals a second against nginx limit_req's: at least. */
  refusalVsNginx: 0.5,
} as const;

/**
 * A ratio set against a target's bound with `digits` decimals, or more where those would round a miss onto the bound:
 * 0.29981 against 0.3 reads 0.2998, not 0.300.
 */
export function ratioAgainst(value: number, bound: number, digits: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  let shown = digits;
  while (shown < 12 && value !== bound && Number(value.toFixed(shown)) === bound) shown++;
  return value.toFixed(shown);
}
