/**
 * How long one trace export holds the event loop, by the number of spans it carries: the OTLP exporter the services
 * use (http/protobuf) serialises a batch and starts its request synchronously, and every request of the process waits
 * meanwhile. `npm run bench:export-batch` (main.ts) reports it.
 */
import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { startOtlpReceiver } from '../lib/otlp-receiver';

export interface BatchTiming {
  spans: number;
  /** Median and worst time `export()` ran before returning, over the rounds. */
  medianMs: number;
  maxMs: number;
  microsPerSpan: number;
}

/** Recorded request spans with the attributes edge-auth gives one (http, gateway.*), ended. */
function requestSpans(count: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('bench');
  for (let index = 0; index < count; index++) {
    const span = tracer.startSpan('GET /v1/:provider/*', { kind: SpanKind.SERVER });
    span.setAttributes({
      'http.request.method': 'GET',
      'url.path': '/v1/video-ads/v1.3/advertiser/info/',
      'url.scheme': 'http',
      'http.route': '/v1/:provider/*',
      'server.address': '127.0.0.1',
      'server.port': 8080,
      'client.address': '127.0.0.1',
      'user_agent.original': 'k6/1.4.2 (https://k6.io/)',
      'network.protocol.version': '1.1',
      'gateway.provider': 'video-ads',
      'gateway.endpoint': 'advertiser/info',
      'gateway.key_id': `key_${index.toString(36).padStart(12, '0')}`,
      'gateway.decision': 'admitted',
      'http.response.status_code': 200,
    });
    span.end();
  }
  return memory.getFinishedSpans() as ReadableSpan[];
}

/**
 * Exports `rounds` batches of each size, one at a time (each waits for the receiver's answer), and times the
 * synchronous part of every `export()` call.
 */
export async function timeExports(
  sizes: number[],
  rounds: number,
): Promise<{ timings: BatchTiming[]; exportsReceived: number }> {
  const receiver = await startOtlpReceiver();
  const exporter = new OTLPTraceExporter({ url: `${receiver.endpoint}/v1/traces` });
  const spans = requestSpans(Math.max(...sizes));
  const timings: BatchTiming[] = [];
  try {
    for (const size of sizes) {
      const batch = spans.slice(0, size);
      const durations: number[] = [];
      for (let round = 0; round < rounds; round++) {
        await new Promise<void>((resolve, reject) => {
          const startedAt = performance.now();
          exporter.export(batch, (result) => (result.error ? reject(result.error) : resolve()));
          durations.push(performance.now() - startedAt);
        });
      }
      durations.sort((a, b) => a - b);
      const medianMs = durations[durations.length >> 1]!;
      timings.push({ spans: size, medianMs, maxMs: durations.at(-1)!, microsPerSpan: (medianMs * 1000) / size });
    }
    return { timings, exportsReceived: receiver.receipts().exports };
  } finally {
    await exporter.shutdown();
    await receiver.close();
  }
}
