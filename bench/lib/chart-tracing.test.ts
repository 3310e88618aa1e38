import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@gateway/testing';
import { chartTracing, traceAsTheChart, tracedServiceEnv } from './chart-tracing';
import { startOtlpReceiver } from './otlp-receiver';

describe('--telemetry of bench:perf and bench:builds', () => {
  it("runs the services with the chart's own tracing settings and the variables its template sets", () => {
    const tracing = chartTracing(repoRoot());
    expect(tracing).toEqual({ protocol: 'http/protobuf', sampler: 'parentbased_traceidratio', samplerArg: '0.1' });
    const env = tracedServiceEnv('edge-auth', 'http://127.0.0.1:4318', tracing, repoRoot());
    const template = readFileSync(join(repoRoot(), 'charts', 'gateway', 'templates', '_helpers.tpl'), 'utf8');
    for (const name of Object.keys(env).filter((variable) => variable.startsWith('OTEL_'))) {
      expect(template).toContain(`- name: ${name}`);
    }
    expect(env).toMatchObject({ OTEL_SERVICE_NAME: 'edge-auth', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    // The preload the images require (@gateway/telemetry/register), compiled.
    const manifest = JSON.parse(readFileSync(join(repoRoot(), 'libs', 'telemetry', 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    expect(env.NODE_OPTIONS).toBe(
      `--require ${join(repoRoot(), 'libs', 'telemetry', manifest.exports['./register']!.default)}`,
    );
  });

  it('refuses a chart whose tracing is off or incomplete rather than run untraced', () => {
    const root = mkdtempSync(join(tmpdir(), 'chart-'));
    mkdirSync(join(root, 'charts', 'gateway'), { recursive: true });
    const values = (text: string) => writeFileSync(join(root, 'charts', 'gateway', 'values.yaml'), text);
    values('opentelemetry:\n  enabled: false\n  protocol: grpc\n  sampler: always_on\n  samplerArg: "1"\n');
    expect(() => chartTracing(root)).toThrow(/enabled is not true/);
    values('opentelemetry:\n  enabled: true\n  protocol: grpc\n  sampler: always_on\n');
    expect(() => chartTracing(root)).toThrow(/opentelemetry.samplerArg/);
  });

  it('counts the trace exports it receives and answers each as a collector does, keeping nothing', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const post = (path: string, type: string, body: string) =>
        fetch(`${receiver.endpoint}${path}`, { method: 'POST', headers: { 'Content-Type': type }, body });
      const protobuf = await post('/v1/traces', 'application/x-protobuf', 'x'.repeat(300));
      expect(protobuf.status).toBe(200);
      expect((await protobuf.arrayBuffer()).byteLength).toBe(0);
      const json = await post('/v1/traces', 'application/json', '{"resourceSpans":[]}');
      expect(await json.text()).toBe('{}');
      await (await post('/v1/metrics', 'application/x-protobuf', 'm')).arrayBuffer();
      expect(receiver.receipts()).toEqual({ exports: 2, bytes: 300 + '{"resourceSpans":[]}'.length });
    } finally {
      await receiver.close();
    }
  });

  it('has the bench environment start each traced service with its own name and a preload beside earlier flags', async () => {
    const saved = Object.fromEntries(
      ['BENCH_EDGE_ENV', 'BENCH_PROXY_ENV', 'BENCH_ACTOR_ENV'].map((v) => [v, process.env[v]]),
    );
    process.env['BENCH_PROXY_ENV'] = JSON.stringify({ NODE_OPTIONS: '--perf-basic-prof-only-functions' });
    const logged: string[] = [];
    const run = await traceAsTheChart(repoRoot(), (line) => logged.push(line));
    try {
      const proxy = JSON.parse(process.env['BENCH_PROXY_ENV']!) as Record<string, string>;
      expect(proxy).toMatchObject({ OTEL_SERVICE_NAME: 'provider-proxy', OTEL_EXPORTER_OTLP_ENDPOINT: run.endpoint });
      expect(proxy['NODE_OPTIONS']).toMatch(/^--perf-basic-prof-only-functions --require \S+register\.js$/);
      const edge = JSON.parse(process.env['BENCH_EDGE_ENV']!) as Record<string, string>;
      expect(edge['OTEL_SERVICE_NAME']).toBe('edge-auth');
      expect(logged).toEqual([`telemetry: parentbased_traceidratio 0.1, http/protobuf to ${run.endpoint}`]);
      await (await fetch(`${run.endpoint}/v1/traces`, { method: 'POST', body: 'span' })).arrayBuffer();
      expect(run.receipts()).toEqual({ ...run.tracing, exports: 1, bytes: 4 });
    } finally {
      await run.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
