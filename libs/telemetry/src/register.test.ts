import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

// These tests run the preload the way services are launched in development, in a child process whose app is
// TypeScript loaded by tsx as CommonJS, and receive its OTLP exports on an in-process HTTP server.
const REPO_ROOT = path.resolve(__dirname, '../../..');
const REGISTER = path.join(__dirname, 'register.ts');
const FIXTURE = path.join(__dirname, 'http-roundtrip.fixture.ts');

jest.setTimeout(60_000);

interface Export {
  contentType: string;
  body: Buffer;
}

interface Receiver {
  endpoint: string;
  exports: Export[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = req.headers['content-type'] ?? '';
      if (req.method === 'POST' && req.url === '/v1/traces') exports.push({ contentType, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
      res.setHeader('Content-Type', contentType);
      res.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface FixtureReport {
  moduleFormat: string;
  sdkLoaded: boolean;
  serverTraceId?: string;
}

interface FixtureRun {
  report: Promise<FixtureReport>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
  pid: number;
}

function runFixture(env: Record<string, string>): FixtureRun {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', '--import', REGISTER, FIXTURE],
    { cwd: REPO_ROOT, env: { ...inherited, OTEL_SERVICE_NAME: 'fixture-service', ...env } },
  );
  let stdout = '';
  let stderr = '';
  let onReport: (report: FixtureReport) => void = () => undefined;
  const report = new Promise<FixtureReport>((resolve) => (onReport = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const line = stdout.split('\n').find((l) => l.includes('"event":"fixture"'));
    if (line) onReport(JSON.parse(line) as FixtureReport);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Awaited<FixtureRun['exit']>>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { report, exit, kill: (signal) => child.kill(signal), pid: child.pid! };
}

/** How many times the process's main thread was woken from a wait (Linux: its voluntary context switches). */
function mainThreadWakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1]);
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
  scope: string;
  service?: string;
}

/** Spans of OTLP/JSON exports, flattened, with their scope and service name. */
function jsonSpans(exports: Export[]): OtlpSpan[] {
  type Body = {
    resourceSpans: {
      resource: { attributes: OtlpSpan['attributes'] };
      scopeSpans: { scope: { name: string }; spans: Omit<OtlpSpan, 'scope' | 'service'>[] }[];
    }[];
  };
  return exports.flatMap(({ body }) =>
    (JSON.parse(body.toString()) as Body).resourceSpans.flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, scope: ss.scope.name, service })));
    }),
  );
}

function attribute(span: OtlpSpan, key: string): string | undefined {
  return span.attributes.find((a) => a.key === key)?.value.stringValue;
}

// OTLP span kinds are the API's plus one.
const OTLP_SERVER = 2;
const OTLP_CLIENT = 3;

describe('register preload', () => {
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  it('exports the server and client spans of one HTTP call under one trace id when the app awaits shutdownTelemetry', async () => {
    const run = runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      FIXTURE_END: 'shutdown',
    });
    const report = await run.report;
    const { code, stdout, stderr } = await run.exit;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(report).toMatchObject({ moduleFormat: 'commonjs', sdkLoaded: true });
    expect(report.serverTraceId).toMatch(/^[0-9a-f]{32}$/);

    const spans = jsonSpans(receiver.exports);
    const httpSpans = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-http');
    const server = httpSpans.find((s) => s.kind === OTLP_SERVER && attribute(s, 'url.path') === '/echo');
    const client = httpSpans.find((s) => s.kind === OTLP_CLIENT && s.traceId === report.serverTraceId);
    expect(server).toBeDefined();
    expect(client).toBeDefined();
    expect(server?.traceId).toBe(report.serverTraceId);
    expect(server?.parentSpanId).toBe(client?.spanId);
    expect(server?.service).toBe('fixture-service');

    // the log line written while handling the request carries the server span's ids
    const handled = stdout
      .split('\n')
      .filter((line) => line.includes('"event":"handled"'))
      .map((line) => JSON.parse(line) as { url: string; trace_id?: string; span_id?: string })
      .find((line) => line.url === '/echo');
    expect(handled).toMatchObject({ trace_id: server?.traceId, span_id: server?.spanId });
  });

  it('lets a service with its own SIGTERM handler drain and call shutdownTelemetry itself', async () => {
    const run = runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      FIXTURE_END: 'graceful',
    });
    const report = await run.report;
    run.kill('SIGTERM');
    const { code, signal } = await run.exit;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(jsonSpans(receiver.exports).some((s) => s.traceId === report.serverTraceId)).toBe(true);
  });

  it('redacts credentials in query strings on http and fetch spans', async () => {
    const run = runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    await run.exit;
    const raw = receiver.exports.map((e) => e.body.toString()).join('\n');
    expect(raw).toContain('access_token=REDACTED');
    expect(raw).not.toContain('fixture-secret');
    const fetchSpan = jsonSpans(receiver.exports).find((s) => s.scope === '@opentelemetry/instrumentation-undici');
    expect(fetchSpan && attribute(fetchSpan, 'url.full')).toMatch(/\/fetched\?key=REDACTED$/);
  });

  it('exports at most 64 spans at once unless OTEL_BSP_MAX_EXPORT_BATCH_SIZE says otherwise', async () => {
    const spansPerExport = async (env: Record<string, string>): Promise<number[]> => {
      const exports: Export[] = [];
      const collector = await startReceiver();
      try {
        const run = runFixture({
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          FIXTURE_END: 'shutdown',
          FIXTURE_EXTRA_CALLS: '100',
          ...env,
        });
        expect((await run.exit).code).toBe(0);
        exports.push(...collector.exports);
      } finally {
        await collector.close();
      }
      return exports.map((one) => jsonSpans([one]).length);
    };
    // Each extra call is a client and a server span, all ended before the shutdown flushes them.
    const ours = await spansPerExport({});
    expect(ours.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...ours)).toBe(64);
    const operators = await spansPerExport({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512' });
    expect(Math.max(...operators)).toBeGreaterThanOrEqual(200);
  });

  it('sends OTLP over HTTP/protobuf by default and flushes on beforeExit when the app just ends', async () => {
    const run = runFixture({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, FIXTURE_END: 'natural' });
    const report = await run.report;
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((e) => e.contentType === 'application/x-protobuf')).toBe(true);
    const traceIdBytes = Buffer.from(report.serverTraceId ?? '', 'hex');
    expect(receiver.exports.some((e) => e.body.includes(traceIdBytes))).toBe(true);
  });

  it('flushes on SIGTERM when the app has no handler, then still terminates by that signal', async () => {
    const run = runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      FIXTURE_END: 'signal',
    });
    const report = await run.report;
    run.kill('SIGTERM');
    const { signal } = await run.exit;
    expect(signal).toBe('SIGTERM');
    expect(jsonSpans(receiver.exports).some((s) => s.traceId === report.serverTraceId)).toBe(true);
  });

  it('leaves an idle traced service asleep when no OTel metrics are exported (no runtime metrics monitor)', async () => {
    const run = runFixture({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, FIXTURE_END: 'signal' });
    await run.report;
    // Past the fixture's own round trip and the keep-alive of its connections.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = mainThreadWakeUps(run.pid);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const wakeUps = mainThreadWakeUps(run.pid) - before;
    run.kill('SIGTERM');
    await run.exit;
    // With @opentelemetry/instrumentation-runtime-node on, its 10 ms event-loop delay monitor alone woke it ~200 times.
    expect(wakeUps).toBeLessThan(40);
  });

  it.each([
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'receiver' }],
    ['no exporter and no endpoint', {}],
  ])('does not load the SDK at all with %s', async (_case, env: Record<string, string>) => {
    const run = runFixture(
      Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'receiver' ? receiver.endpoint : v])),
    );
    const report = await run.report;
    const { code, stderr } = await run.exit;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(report).toMatchObject({ moduleFormat: 'commonjs', sdkLoaded: false });
    expect(report.serverTraceId).toBeUndefined();
    expect(receiver.exports).toHaveLength(0);
  });
});
