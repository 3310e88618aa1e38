/**
 * A minimal service for register.test.ts, started in a child process behind the register preload: one HTTP
 * server, one http.get and one fetch() to it (and FIXTURE_EXTRA_CALLS more http.gets), then it ends the way FIXTURE_END
 * says:
 * - `shutdown`: awaits shutdownTelemetry() then calls process.exit, as a service's graceful shutdown does
 *   (so no beforeExit flush can stand in for it);
 * - `natural`: just lets the event loop empty (beforeExit flush);
 * - `signal`: keeps listening until SIGTERM, without a handler of its own;
 * - `graceful`: keeps listening until SIGTERM, then does the `shutdown` sequence in its own handler.
 * It prints one JSON line describing what it saw.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { createLogger, shutdownTelemetry } from '@gateway/telemetry';

const logger = createLogger('fixture');
let serverTraceId: string | undefined;

const server = http.createServer((req, res) => {
  serverTraceId ??= trace.getActiveSpan()?.spanContext().traceId;
  logger.info({ event: 'handled', url: req.url?.split('?')[0] }, 'handled');
  res.end('ok');
});

function get(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await get(`${base}/echo?access_token=fixture-secret-1&page=2`);
  for (let extra = Number(process.env.FIXTURE_EXTRA_CALLS ?? 0); extra > 0; extra--) await get(`${base}/extra`);
  await (await fetch(`${base}/fetched?key=fixture-secret-2`)).text();
  const report = {
    event: 'fixture',
    moduleFormat: typeof module === 'undefined' ? 'esm' : 'commonjs',
    sdkLoaded: Object.keys(require.cache).some((path) => path.includes('@opentelemetry/sdk-node')),
    serverTraceId,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);

  const end = process.env.FIXTURE_END ?? 'shutdown';
  if (end === 'signal') return;
  if (end === 'graceful') {
    process.once('SIGTERM', () => void shutDown());
    return;
  }
  if (end === 'shutdown') await shutDown();
  else await closeServer();
}

function closeServer(): Promise<void> {
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

async function shutDown(): Promise<never> {
  await closeServer();
  await shutdownTelemetry();
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
