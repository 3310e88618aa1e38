/**
 * How a target is warmed before it is measured: windows of load until its rate stops climbing. A Node service's
 * first seconds under load run code V8 has not optimized yet; on a 2-core VM a gateway target measured after 1 s of
 * load cost twice the CPU per answer it cost ten seconds later (docs/benchmarks.md, "Warm-up"), so a fixed short
 * warm-up measured the JIT, not the path. nginx and Go binaries are steady from the first window and stop early.
 */
export interface WarmUpSettings {
  /** Length of one window of load. */
  windowSeconds: number;
  /**
   * Load for at least this long before the rate may be called steady. On the 2-core VMs the gateway's rate still
   * climbed after 5 s of load and levelled off after about 8 s, while a noisy dip of two short windows could end the
   * warm-up earlier (docs/benchmarks.md, "Warm-up").
   */
  minSeconds?: number;
  /** The warm-up ends after this long even if the rate still climbs; the report shows the windows either way. */
  maxSeconds: number;
}

export interface WarmUp {
  /** Rate of each window, in order (2xx/s, or 429/s on the refusal path). */
  windows: number[];
  seconds: number;
  /** false: stopped by maxSeconds while the rate still climbed. */
  steady: boolean;
}

/** A window that beats the best before it by less than this is not climbing any more. */
const CLIMB = 0.05;
/** Windows in a row that must not climb: one noisy dip on a shared machine is not the end of the warm-up. */
const FLAT_WINDOWS = 2;

/** Whether the rates so far show a target that stopped getting faster: the last FLAT_WINDOWS did not climb. */
export function stoppedClimbing(windows: readonly number[]): boolean {
  if (windows.length <= FLAT_WINDOWS) return false;
  const bestBefore = Math.max(...windows.slice(0, windows.length - FLAT_WINDOWS));
  return windows.slice(-FLAT_WINDOWS).every((rate) => rate < bestBefore * (1 + CLIMB));
}

/**
 * Runs windows of load (`window` returns the window's rate) until the rate stops climbing after at least minSeconds,
 * or maxSeconds pass.
 */
export async function warmUntilSteady(
  settings: WarmUpSettings,
  window: (seconds: number) => Promise<number>,
): Promise<WarmUp> {
  const windows: number[] = [];
  const maxWindows = Math.max(FLAT_WINDOWS + 1, Math.floor(settings.maxSeconds / settings.windowSeconds));
  const minWindows = Math.ceil((settings.minSeconds ?? 0) / settings.windowSeconds);
  while (windows.length < maxWindows) {
    windows.push(await window(settings.windowSeconds));
    if (windows.length >= minWindows && stoppedClimbing(windows)) {
      return { windows, seconds: windows.length * settings.windowSeconds, steady: true };
    }
  }
  // At maxSeconds: steady if the last windows stopped climbing (minSeconds may be longer than maxSeconds).
  return { windows, seconds: windows.length * settings.windowSeconds, steady: stoppedClimbing(windows) };
}

/** "12 s: 3,510, 5,234, 6,798, 6,402, 6,952 /s" for the report. */
export function warmUpText(warmUp: WarmUp | undefined): string {
  if (!warmUp) return '-';
  const rates = warmUp.windows.map((rate) => Math.round(rate).toLocaleString('en-US')).join(', ');
  return `${warmUp.seconds} s${warmUp.steady ? '' : ' (still climbing)'}: ${rates}`;
}
