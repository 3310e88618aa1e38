/**
 * The MCP benchmark alone, until it is wired into bench/main.ts:
 *   node --conditions=development --import tsx bench/mcp/mcp-bench.main.ts [--quick]
 * Starts the bench environment (its own NATS, FerretDB, the gateway cluster, seeded keys), runs runMcpBench and
 * prints the report section.
 */
import { BenchEnvironment } from '../setup/bench-environment';
import { MCP_BENCH_FULL, MCP_BENCH_QUICK, mcpMarkdown, runMcpBench } from './mcp.bench';

async function main(): Promise<void> {
  const settings = process.argv.includes('--quick') ? MCP_BENCH_QUICK : MCP_BENCH_FULL;
  const t0 = Date.now();
  const log = (message: string) => console.log(`[bench +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  const env = await BenchEnvironment.start({ loadKeys: settings.keys, monthlyQuota: 3_000, log });
  try {
    const section = await runMcpBench(env, settings, log);
    console.log(`\n${mcpMarkdown(section).join('\n')}`);
  } finally {
    await env.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
