import type { GatewayCluster, RunningService } from '@gateway/testing';
import { Agent, request } from 'node:http';
import { SampleBuffer, summarize, type LatencySummary } from '../lib/stats';

/**
 * What the MCP benchmark needs from the bench environment (BenchEnvironment satisfies it): the cluster to start
 * an mcp-server in, the REST edge to compare with, seeded keys and the platform call both sides make.
 */
export interface McpBenchEnvironment {
  cluster: Pick<GatewayCluster, 'startMcp'>;
  edges: { stream: RunningService };
  loadKeys: readonly { secret: string }[];
  platformPathAndQuery(): { path: string; query: string };
  /** What a service needs in its environment to be profiled (empty without --profile). */
  profiledEnv: Record<string, string>;
  profile<T>(label: string, services: RunningService[], work: () => Promise<T>): Promise<T>;
}

export interface McpBenchSettings {
  /** Measured request pairs (one REST call and one call_endpoint each). */
  pairs: number;
  /** Pairs sent first and not recorded (connections, JIT, the actor's key cache). */
  warmupPairs: number;
  /** Keys used round robin, so no key comes near its rate. */
  keys: number;
}

export interface McpBenchSection {
  settings: McpBenchSettings;
  /** The platform call both sides make. */
  endpoint: string;
  rest: LatencySummary;
  mcp: LatencySummary;
  /** call_endpoint minus REST, same run, same keys, same endpoint. */
  addedP50Ms: number;
  addedP99Ms: number;
  /** Answers that were not a 200 with the platform's data (REST) or a non-error tool result (MCP). */
  errors: { rest: number; mcp: number };
  /** Issue target: call_endpoint adds at most 2 ms at p50. */
  targetMet: boolean;
}

export const MCP_BENCH_FULL: McpBenchSettings = { pairs: 3_000, warmupPairs: 300, keys: 32 };
export const MCP_BENCH_QUICK: McpBenchSettings = { pairs: 600, warmupPairs: 100, keys: 16 };

interface Timed {
  ms: number;
  ok: boolean;
}

/**
 * call_endpoint latency against the same REST call (issue: "at most 2 ms added at p50"). One mcp-server is started
 * in the cluster (stream transport to provider-proxy, like the REST edge); then request pairs are sent one at a
 * time over keep-alive connections: GET {rest}/v1/video-ads/<path>?<query> with X-API-Key, and a stateless MCP
 * POST tools/call call_endpoint with the same key, path and parameters, alternating which goes first. Both answers
 * are read completely and checked. Sequential requests measure the added latency, not throughput.
 */
export async function runMcpBench(
  env: McpBenchEnvironment,
  settings: McpBenchSettings,
  log: (message: string) => void,
): Promise<McpBenchSection> {
  const keys = env.loadKeys.slice(0, Math.max(1, settings.keys)).map((key) => key.secret);
  const { path, query } = env.platformPathAndQuery();
  const params = Object.fromEntries(new URLSearchParams(query));
  log(`mcp: starting mcp-server; ${keys.length} keys, ${settings.pairs} pairs after ${settings.warmupPairs} warm-up`);
  const mcpService = await env.cluster.startMcp({
    PROVIDER_PROXY_TRANSPORT: 'stream',
    LOG_LEVEL: 'warn',
    ...env.profiledEnv,
  });
  const restOrigin = new URL(env.edges.stream.url);
  const mcpOrigin = new URL(mcpService.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const restTarget = `/v1/video-ads${path}?${query}`;
  let id = 0;
  const callRest = (key: string) =>
    timed(
      agent,
      restOrigin,
      { method: 'GET', path: restTarget, headers: { 'X-API-Key': key } },
      undefined,
      (status, body) => status === 200 && body.startsWith('{"code":0'),
    );
  const callMcp = (key: string) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: 'call_endpoint', arguments: { provider: 'video-ads', path, params } },
    });
    return timed(
      agent,
      mcpOrigin,
      {
        method: 'POST',
        path: '/mcp',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Protocol-Version': '2025-06-18',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      },
      body,
      (status, text) => status === 200 && text.includes('"result"') && !text.includes('"isError":true'),
    );
  };

  const rest = new SampleBuffer();
  const mcp = new SampleBuffer();
  const errors = { rest: 0, mcp: 0 };
  const callPair = async (pair: number) => {
    const key = keys[pair % keys.length]!;
    const restFirst = pair % 2 === 0;
    const first = await (restFirst ? callRest(key) : callMcp(key));
    const second = await (restFirst ? callMcp(key) : callRest(key));
    return restFirst ? { rest: first, mcp: second } : { rest: second, mcp: first };
  };
  try {
    for (let pair = 0; pair < settings.warmupPairs; pair++) await callPair(pair);
    // With --profile, the measured pairs are one profiled window of both servers.
    await env.profile('mcp call_endpoint and REST, one pair at a time', [mcpService, env.edges.stream], async () => {
      for (let pair = settings.warmupPairs; pair < settings.warmupPairs + settings.pairs; pair++) {
        const timings = await callPair(pair);
        rest.push(timings.rest.ms);
        mcp.push(timings.mcp.ms);
        if (!timings.rest.ok) errors.rest++;
        if (!timings.mcp.ok) errors.mcp++;
      }
    });
  } finally {
    agent.destroy();
    await mcpService.stop();
  }
  const restSummary = summarize(rest.values());
  const mcpSummary = summarize(mcp.values());
  const section: McpBenchSection = {
    settings: { ...settings, keys: keys.length },
    endpoint: `GET ${path}?${query}`,
    rest: restSummary,
    mcp: mcpSummary,
    addedP50Ms: mcpSummary.p50 - restSummary.p50,
    addedP99Ms: mcpSummary.p99 - restSummary.p99,
    errors,
    targetMet: mcpSummary.p50 - restSummary.p50 <= 2,
  };
  log(
    `mcp: REST p50 ${restSummary.p50.toFixed(2)} ms p99 ${restSummary.p99.toFixed(2)} ms; call_endpoint p50 ` +
      `${mcpSummary.p50.toFixed(2)} ms p99 ${mcpSummary.p99.toFixed(2)} ms; added p50 ${section.addedP50Ms.toFixed(2)} ms; ` +
      `errors rest ${errors.rest}, mcp ${errors.mcp}`,
  );
  return section;
}

/** The section of the benchmark report (markdown lines). */
export function mcpMarkdown(section: McpBenchSection): string[] {
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : 'n/a');
  return [
    '## MCP: call_endpoint against the same REST call',
    '',
    `Method: one mcp-server and the REST edge (both with the multiplexed gRPC stream to provider-proxy) in the same ` +
      `cluster; ${section.settings.pairs} request pairs after ${section.settings.warmupPairs} warm-up pairs, sent one ` +
      `at a time over keep-alive connections, alternating which of the two goes first; ${section.settings.keys} keys ` +
      `round robin. REST: \`${section.endpoint}\` with X-API-Key. MCP: a stateless POST tools/call call_endpoint ` +
      `with the same key, path and parameters (one \`free\` decision for the HTTP request, one \`forward\` decision ` +
      `without a rate unit, the same gRPC call, then fencing and the size check).`,
    '',
    '| | p50 | p90 | p99 | max | errors |',
    '|---|---|---|---|---|---|',
    `| REST | ${ms(section.rest.p50)} | ${ms(section.rest.p90)} | ${ms(section.rest.p99)} | ${ms(section.rest.max)} | ${section.errors.rest} |`,
    `| MCP call_endpoint | ${ms(section.mcp.p50)} | ${ms(section.mcp.p90)} | ${ms(section.mcp.p99)} | ${ms(section.mcp.max)} | ${section.errors.mcp} |`,
    `| added by MCP | ${ms(section.addedP50Ms)} | | ${ms(section.addedP99Ms)} | | |`,
    '',
    `Target (at most 2 ms added at p50): ${section.targetMet ? '**met**' : '**NOT met**'}`,
    '',
  ];
}

function timed(
  agent: Agent,
  origin: URL,
  options: { method: string; path: string; headers: Record<string, string> },
  body: string | undefined,
  check: (status: number, body: string) => boolean,
): Promise<Timed> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const done = (ok: boolean) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, ok });
    const req = request({ host: origin.hostname, port: origin.port, agent, timeout: 30_000, ...options }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => done(false));
      res.on('end', () => done(check(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(false));
    req.end(body);
  });
}
