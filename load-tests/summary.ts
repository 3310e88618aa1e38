/**
 * Prints the figures of a k6 run of hot-path.js from its --summary-export file (run.sh calls it after k6):
 * requests and achieved rate per scenario, p95/p99 of admitted requests, shares of 429s, errors, and every
 * threshold with pass/fail.
 *
 *   node --conditions=development --import tsx load-tests/summary.ts reports/load-<timestamp>.json [duration]
 */
import { readFileSync } from 'node:fs';

interface Metric {
  count?: number;
  rate?: number;
  value?: number;
  passes?: number;
  fails?: number;
  'p(95)'?: number;
  'p(99)'?: number;
  med?: number;
  max?: number;
  /** Legacy summary export: true means the threshold was crossed (failed). */
  thresholds?: Record<string, boolean>;
}

interface Summary {
  metrics: Record<string, Metric>;
}

const SCENARIOS = ['hot_key', 'many_keys', 'warmup'] as const;

function seconds(duration: string | undefined): number | undefined {
  if (!duration) return undefined;
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total > 0 ? total : undefined;
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(1)} ms`);
const pct = (value: number | undefined) => (value === undefined ? '-' : `${(value * 100).toFixed(2)} %`);

export function formatSummary(summary: Summary, duration?: string): string {
  const metric = (name: string): Metric | undefined => summary.metrics[name];
  const measuredSeconds = seconds(duration);
  const lines: string[] = ['', 'load test figures'];
  for (const scenario of SCENARIOS) {
    const outcomes = metric(`errors{scenario:${scenario}}`) ?? undefined;
    const requests = outcomes ? (outcomes.passes ?? 0) + (outcomes.fails ?? 0) : undefined;
    const admitted = metric(`admitted_duration{scenario:${scenario}}`);
    if (requests === undefined && admitted === undefined) continue;
    const rate =
      requests !== undefined && measuredSeconds && scenario !== 'warmup' ? requests / measuredSeconds : undefined;
    const share429 =
      scenario === 'hot_key'
        ? metric('hot_key_429')?.value
        : scenario === 'many_keys'
          ? metric('many_keys_429')?.value
          : undefined;
    lines.push(
      `  ${scenario.padEnd(9)}  requests ${String(requests ?? '-').padStart(6)}` +
        (rate !== undefined ? `  (${rate.toFixed(1)}/s)` : '') +
        `  admitted ${admitted?.count ?? '-'}  p95 ${ms(admitted?.['p(95)'])}  p99 ${ms(admitted?.['p(99)'])}` +
        (share429 !== undefined ? `  429 share ${pct(share429)}` : '') +
        `  errors ${pct(outcomes?.value)}`,
    );
  }
  const limited = metric('rate_limited_duration');
  if (limited?.count)
    lines.push(`  429 answers: ${limited.count}, p95 ${ms(limited['p(95)'])}, p99 ${ms(limited['p(99)'])}`);
  lines.push(
    `  5xx: ${metric('server_errors')?.count ?? 0}   dropped iterations: ${metric('dropped_iterations')?.count ?? 0}` +
      `   all requests: ${metric('http_reqs')?.count ?? 0}`,
  );
  lines.push('thresholds');
  let failed = 0;
  for (const [name, value] of Object.entries(summary.metrics)) {
    for (const [expression, crossed] of Object.entries(value.thresholds ?? {})) {
      if (crossed) failed += 1;
      lines.push(`  ${crossed ? 'FAIL' : 'pass'}  ${name}  ${expression}`);
    }
  }
  lines.push(failed === 0 ? 'all thresholds passed' : `${failed} threshold(s) failed`, '');
  return lines.join('\n');
}

if (require.main === module) {
  const [path, duration] = process.argv.slice(2);
  if (!path) {
    console.error('usage: summary.ts <k6 summary-export.json> [duration]');
    process.exit(2);
  }
  console.log(formatSummary(JSON.parse(readFileSync(path, 'utf8')) as Summary, duration));
}
