import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { timeExports } from './export-batch';

// The OTLP exporter loads node:http with a dynamic import, which Jest's module system refuses: the measurement runs in
// a child process, as `npm run bench:export-batch` runs it (tsx loads the module as CommonJS, hence `default`).
const REPO_ROOT = join(__dirname, '..', '..');

async function timeExportsInChild(sizes: number[], rounds: number): ReturnType<typeof timeExports> {
  const script =
    "import('./bench/telemetry/export-batch.ts')" +
    `.then((bench) => bench.default.timeExports(${JSON.stringify(sizes)}, ${rounds}))` +
    '.then((result) => console.log(JSON.stringify(result)))';
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: REPO_ROOT, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Awaited<ReturnType<typeof timeExports>>;
}

describe('trace export timing', () => {
  it('times every export it sends, each size with its own row, and the receiver gets them all', async () => {
    const { timings, exportsReceived } = await timeExportsInChild([8, 2], 3);
    expect(exportsReceived).toBe(6);
    expect(timings.map(({ spans }) => spans)).toEqual([8, 2]);
    for (const row of timings) {
      expect(row.medianMs).toBeGreaterThan(0);
      expect(row.maxMs).toBeGreaterThanOrEqual(row.medianMs);
      expect(row.microsPerSpan).toBeCloseTo((row.medianMs * 1000) / row.spans);
    }
  }, 60_000);
});
