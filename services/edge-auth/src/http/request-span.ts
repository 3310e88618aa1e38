import { setSafeAttributes } from '@gateway/telemetry';
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const tracer = trace.getTracer('@gateway/edge-auth');

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * What runs each request: inRequestSpan when a tracer provider is registered (the SDK preloaded), else the handler
 * alone, so that a service without tracing pays nothing for it. Asked once, when the server is built.
 */
export function requestRunner(): (
  route: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  handle: RequestHandler,
) => void {
  // A tracer that is only the API's no-op gives invalid ids. The probe is never ended, so never exported.
  const probe = tracer.startSpan('probe');
  const traced = isSpanContextValid(probe.spanContext());
  return traced ? inRequestSpan : (_route, req, res, handle) => handle(req, res);
}

/**
 * Runs `handle` inside the request's SERVER span, child of the caller's trace context (W3C traceparent and baggage)
 * when it sent one. edge-auth traces its requests itself instead of through the http auto-instrumentation
 * (bypassInstrumentedEmit): that one builds every attribute, binds the request and the response to the context and
 * adds two listeners before the sampler has spoken; without it a traced edge spent 0.726x the CPU per answer
 * (docs/benchmarks.md, "Tracing as the chart ships it"). Here a request whose trace is not sampled costs its ids and
 * its context; attributes, and the listener that ends the span, are only for a recorded one. The query string is
 * never recorded: callers put credentials in it under any name.
 */
export function inRequestSpan(
  route: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  handle: RequestHandler,
): void {
  const method = req.method ?? 'GET';
  const parent = carriesTraceContext(req) ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
  const span = tracer.startSpan(route === undefined ? method : `${method} ${route}`, { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) {
    setSafeAttributes(span, requestAttributes(route, method, req));
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('error.type', 'response_not_finished');
      span.end();
    });
  }
  context.with(trace.setSpan(parent, span), handle, undefined, req, res);
}

function carriesTraceContext(req: IncomingMessage): boolean {
  return req.headers['traceparent'] !== undefined || req.headers['baggage'] !== undefined;
}

/** The HTTP server attributes of the semantic conventions the auto-instrumentation set, but the query. */
function requestAttributes(route: string | undefined, method: string, req: IncomingMessage) {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const { host, port } = hostAndPort(req.headers.host ?? '');
  return {
    'http.request.method': method,
    'http.route': route,
    'url.path': queryAt === -1 ? url : url.slice(0, queryAt),
    'url.scheme': 'http',
    'server.address': host || undefined,
    'server.port': port ? Number(port) : undefined,
    'network.protocol.version': req.httpVersion,
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'user_agent.original': req.headers['user-agent'],
  };
}

/** The Host header's name and port; an IPv6 literal comes without its brackets. */
function hostAndPort(header: string): { host: string; port: string } {
  const bracketEnd = header.startsWith('[') ? header.indexOf(']') : -1;
  if (bracketEnd > 0) return { host: header.slice(1, bracketEnd), port: header.slice(bracketEnd + 2) };
  const colon = header.indexOf(':');
  return colon === -1 ? { host: header, port: '' } : { host: header.slice(0, colon), port: header.slice(colon + 1) };
}

/**
 * Makes the server's 'request' events skip the http auto-instrumentation, which wraps http.Server.prototype.emit:
 * the server emits through EventEmitter's own emit, as it does when no instrumentation is loaded. edge-auth then
 * starts the request's span itself (inRequestSpan).
 */
export function bypassInstrumentedEmit(server: Server): void {
  server.emit = EventEmitter.prototype.emit;
}
