/**
 * `npm run bench:export-batch -- [--sizes 512,256,128,64,32] [--rounds 40]`
 *
 * How long one trace export holds the event loop, by the number of spans it carries (export-batch.ts). The spans are
 * shaped as edge-auth's recorded request spans; the exports go to an OTLP receiver in this process. Prints a table and
 * writes reports/export-batch-<time>.{md,json}.
 */
import { describeMachine } from '../lib/machine';
import { reportStamp, runMain, writeReportFiles } from '../lib/report-files';
import { timeExports } from './export-batch';

function parseList(argv: string[], name: string, fallback: number[]): number[] {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const values = (argv[at + 1] ?? '').split(',').map(Number);
  if (values.some((value) => !Number.isInteger(value) || value < 1)) throw new Error(`${name}: positive integers`);
  return values;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = parseList(argv, '--sizes', [512, 256, 128, 64, 32]);
  const [rounds] = parseList(argv, '--rounds', [40]);
  const startedAt = new Date().toISOString();
  const machine = describeMachine();
  // The first pass warms the serialiser up (JIT), so that the sizes measured later are not favoured.
  await timeExports(sizes, 5);
  const { timings } = await timeExports(sizes, rounds!);
  const markdown = [
    `# Trace export: event-loop time per export, by batch size — ${startedAt}`,
    '',
    `${machine.nproc} cores (${machine.cpuModel}), Node ${machine.node}, load average ${machine.loadAverageAtStart} ` +
      `at the start. OTLP http/protobuf to a receiver in the same process; ${rounds} exports per size after a ` +
      'warm-up pass; edge-auth-shaped request spans (14 attributes).',
    '',
    '| spans per export | median ms | worst ms | µs per span |',
    '|---|---|---|---|',
    ...timings.map(
      (row) =>
        `| ${row.spans} | ${row.medianMs.toFixed(2)} | ${row.maxMs.toFixed(2)} | ${row.microsPerSpan.toFixed(1)} |`,
    ),
    '',
  ].join('\n');
  await writeReportFiles(
    'export-batch',
    reportStamp(startedAt),
    markdown,
    { startedAt, machine, rounds, timings },
    (m) => console.log(m),
  );
}

runMain(main);
