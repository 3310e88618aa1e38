import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the services exported while a bench ran with tracing on. */
export interface OtlpReceipts {
  /** OTLP/HTTP trace exports (POST /v1/traces) received. */
  exports: number;
  /** Their bytes, as sent (protobuf unless the protocol says otherwise). */
  bytes: number;
}

/**
 * An OTLP/HTTP endpoint in the bench process for services that export their spans (bench:perf --telemetry): it takes
 * every export, answers it as a collector does, and counts what came, so that the export's own cost is part of what is
 * measured and its volume is reported. It keeps no span.
 */
export async function startOtlpReceiver(): Promise<{
  endpoint: string;
  receipts(): OtlpReceipts;
  close(): Promise<void>;
}> {
  const receipts: OtlpReceipts = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        receipts.exports++;
        receipts.bytes += bytes;
      }
      // An empty ExportTraceServiceResponse is zero bytes in protobuf, `{}` in JSON.
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipts: () => ({ ...receipts }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
