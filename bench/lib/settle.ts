import { CpuMeter, cpuByName } from './cpu-meter';

/**
 * Waits until the benchmark's processes are quiet (none above `thresholdPercent` of a core over a 1 s sample),
 * so work left over from one load (usage flushes queued behind a slow database) is not measured with the next.
 * Returns how long that took and what was still busy when it gave up.
 */
export async function settle(
  maxMs: number,
  thresholdPercent = 10,
): Promise<{ waitedMs: number; quiet: boolean; busy: string }> {
  const started = Date.now();
  let busy = '';
  for (;;) {
    const meter = new CpuMeter();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const usage = cpuByName(meter.stop());
    const hot = [...usage].filter(([name, percent]) => name !== 'bench (main)' && percent > thresholdPercent);
    busy = hot.map(([name, percent]) => `${name} ${Math.round(percent)}%`).join(', ');
    if (hot.length === 0) return { waitedMs: Date.now() - started, quiet: true, busy };
    if (Date.now() - started > maxMs) return { waitedMs: Date.now() - started, quiet: false, busy };
  }
}
