import {
  rateLimitHeaders,
  type DecisionClient,
  type DecisionRequest,
  type Reject,
  type Verdict,
} from '@gateway/decisions';
import { requestIdOf, sendProblem, sendProblemFields, toGatewayCode, wasNotForwarded } from '@gateway/errors';
import type { ProviderCaller, ResponseHeadInfo, ResponseSink } from '@gateway/proto';
import { hashApiKey, isWellFormedApiKey } from '@gateway/store';
import { activeTraceContext, sampledTraceparent, setSafeAttributes, type Logger } from '@gateway/telemetry';
import { trace, type Span } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createGzip } from 'node:zlib';
import { isAllowedMethod } from '@gateway/catalogue';
import { classifyTarget } from '../routing/request-target';
import { hasBody, readCheckedBody } from './request-body';
import { deprecationPage, deprecationsDocument, lifecycleHeaders } from './version-lifecycle';

export interface GatewayDeps {
  /** heldRefusal, when given, answers a refusal the edge holds (RefusalHold) in the request's own turn. */
  decisions: Pick<DecisionClient, 'decide' | 'refund'> & Partial<Pick<DecisionClient, 'heldRefusal'>>;
  caller: ProviderCaller;
  clientAddress: (socketAddress: string | undefined, forwardedFor?: string) => string;
  upstreamTimeoutMs: number;
  gzipMinBytes: number;
  logger: Logger;
  /** How long each stage kept a request waiting, in seconds (metrics). */
  stages?: StageClock;
  /** How long a client may take none of an answer before it is cut (default SEND_TIMEOUT_MS). */
  sendTimeoutMs?: number;
}

export interface StageClock {
  /** From asking the quota-actor to its verdict. */
  decision(seconds: number): void;
  /** From calling provider-proxy to the answer's head, or its failure. */
  provider(seconds: number): void;
}

/**
 * The one handler for /v1/me and /v1/{provider}/... . Order of checks (docs/rest.md, "Order of checks"):
 *  1. 401 missing_api_key / invalid_api_key (malformed)            — here, no actor call
 *  2. 404 unknown_provider, 404 not_found                             — here
 *  3. 401 invalid_api_key / key_revoked, 403 ip_not_allowed, 429 rate_limited,
 *     403 provider_not_in_plan, 403 path_not_allowed, 400 missing_account_id,
 *     403 account_not_allowed, 429 quota_exceeded                     — one verdict from the key's actor
 *  4. forward to provider-proxy; 502/503/504 when the platform cannot be reached in time.
 */
export function createGatewayHandler(deps: GatewayDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    const target = classifyTarget(req.url ?? '');
    if (target.kind !== 'provider') {
      stampAnswer(res, requestId, NO_FIELDS);
      if (target.kind === 'not_found') return sendProblem(res, 'not_found', requestId);
      if (target.kind === 'deprecations') return sendDeprecations(req, res, requestId);
      if (target.kind === 'deprecation_page') return sendDeprecationPage(req, res, requestId, target);
    }
    // Every answer on a retiring API version's path says so, a refusal by the gateway as much as the platform's.
    // A provider's answers are stamped just before they are written (stampAnswer): a held refusal writes all its
    // fields in one writeHead, which node takes as they are only when none was set before.
    const lifecycle = target.kind === 'provider' ? lifecycleHeaders(target.provider, target.path) : NO_FIELDS;

    const apiKey = req.headers['x-api-key'];
    if (apiKey === undefined || apiKey === '') {
      stampAnswer(res, requestId, lifecycle);
      return sendProblem(res, 'missing_api_key', requestId, { detail: 'send your key in the X-API-Key header' });
    }
    if (typeof apiKey !== 'string' || !isWellFormedApiKey(apiKey)) {
      stampAnswer(res, requestId, lifecycle);
      return sendProblem(res, 'invalid_api_key', requestId);
    }
    if (target.kind === 'unknown_provider') {
      return sendProblem(res, 'unknown_provider', requestId, { detail: `"${target.segment}" is not a provider id` });
    }

    const keyHash = hashApiKey(apiKey);
    const ip = deps.clientAddress(req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']));
    // The trace context the request runs in: all of it goes to provider-proxy, its traceparent to the actor when the
    // trace is sampled (the actor's decision span records nothing under an unsampled parent).
    const traceContext = activeTraceContext();
    const traceparent = sampledTraceparent(traceContext);
    const span = trace.getActiveSpan();
    const isGet = req.method === 'GET';

    const askedAt = performance.now();
    if (target.kind === 'me') {
      const request: DecisionRequest = { keyHash, ip, intent: 'describe', ...(traceparent ? { traceparent } : {}) };
      void deps.decisions.decide(request).then((verdict) => {
        deps.stages?.decision((performance.now() - askedAt) / 1000);
        annotate(span, requestId, verdict);
        if (!verdict.ok) return reject(res, requestId, verdict);
        // spec 4.1: only GET; other methods are refused like any path that is not allowed.
        if (!isGet) return sendProblem(res, 'path_not_allowed', requestId, { headers: limitHeaders(verdict) });
        const body = JSON.stringify(verdict.description);
        res.writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-store',
          ...limitHeaders(verdict),
        });
        res.end(body);
      });
      return;
    }

    const accountHeader = req.headers['x-account-id'];
    const endpoint = target.endpoint;
    const allowed = endpoint !== undefined && isAllowedMethod(endpoint, req.method ?? '');
    const request: DecisionRequest = {
      keyHash,
      ip,
      intent: 'forward',
      provider: target.provider,
      pathAllowed: allowed,
      ...(typeof accountHeader === 'string' ? { accountId: accountHeader } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
    const decideAndForward = (body: Buffer | undefined) => {
      // The refusal path of a key over its rate or quota (issue 17): no promise, no actor, no stage to time.
      const held = deps.decisions.heldRefusal?.(request);
      if (held) {
        annotate(span, requestId, held, target.provider, endpoint?.path);
        return sendProblemFields(res, held.code, requestId, heldRefusalFields(requestId, lifecycle, held), {
          detail: held.detail || undefined,
          retryAfterSeconds: held.retryAfterSeconds,
        });
      }
      void deps.decisions.decide(request).then((verdict) => {
        deps.stages?.decision((performance.now() - askedAt) / 1000);
        annotate(span, requestId, verdict, target.provider, endpoint?.path);
        if (!verdict.ok) {
          stampAnswer(res, requestId, lifecycle);
          return reject(res, requestId, verdict);
        }
        const call = {
          provider: target.provider,
          path: target.path,
          query: target.query,
          method: endpoint!.method,
          body,
        };
        forward(deps, req, res, { requestId, lifecycle }, keyHash, verdict, call, traceContext);
      });
    };
    // The hot path: a GET without a body is decided at once. A body is read and checked first, and only on an
    // allowed call: a refused path never has its body read, and a bad body is never counted.
    if (!allowed || (isGet && !hasBody(req))) return decideAndForward(undefined);
    void readCheckedBody(req, endpoint).then((outcome) => {
      if (!outcome.ok) {
        stampAnswer(res, requestId, lifecycle);
        return sendProblem(res, outcome.code, requestId, { detail: outcome.detail });
      }
      decideAndForward(outcome.body);
    });
  };
}

interface ForwardCall {
  provider: string;
  path: string;
  query: string;
  method: string;
  body: Buffer | undefined;
}

/** What every answer to the request carries before its own fields: its id and its version's lifecycle fields. */
interface AnswerStamp {
  requestId: string;
  lifecycle: Record<string, string>;
}

function forward(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  stamp: AnswerStamp,
  keyHash: string,
  verdict: Extract<Verdict, { ok: true }>,
  call: ForwardCall,
  traceContext: Record<string, string>,
): void {
  const headers = limitHeaders(verdict);
  let headSent = false;
  let out: NodeJS.WritableStream = res;
  /** Body bytes written while the client was behind, granted back to provider-proxy on 'drain'. */
  let owed = 0;
  let stalled: NodeJS.Timeout | undefined;
  // A paused answer holds a platform connection at provider-proxy: a client whose socket takes nothing for the
  // send timeout loses the answer (nginx's send_timeout); one that takes some, however slowly, keeps it.
  const watchStall = () => {
    const taken = takenBySocket(res);
    stalled = setTimeout(() => {
      if (takenBySocket(res) > taken) watchStall();
      else res.destroy();
    }, deps.sendTimeoutMs ?? SEND_TIMEOUT_MS);
  };
  const calledAt = performance.now();
  let answered = false;
  const providerAnswered = () => {
    if (answered) return;
    answered = true;
    deps.stages?.provider((performance.now() - calledAt) / 1000);
  };
  const sink: ResponseSink = {
    onHead(head) {
      providerAnswered();
      headSent = true;
      stampAnswer(res, stamp.requestId, stamp.lifecycle);
      setAnswerFields(res, head, headers);
      const length = Number(head.headers['content-length'] ?? Number.NaN);
      if (acceptsGzip(req) && !(length < deps.gzipMinBytes)) {
        res.setHeader('Content-Encoding', 'gzip');
        res.setHeader('Vary', 'Accept-Encoding');
        const gzip = createGzip({ level: 4 });
        gzip.pipe(res);
        out = gzip;
      } else if (Number.isFinite(length)) {
        res.setHeader('Content-Length', length);
      }
      res.writeHead(head.status);
    },
    onChunk(chunk) {
      // Credit goes back once the client's socket took the bytes: a slow client holds the platform's answer back
      // at provider-proxy, not in this process.
      if (out.write(chunk) && owed === 0) return handle.credit(chunk.length);
      owed += chunk.length;
      if (owed === chunk.length) {
        watchStall();
        out.once('drain', () => {
          clearTimeout(stalled);
          const bytes = owed;
          owed = 0;
          handle.credit(bytes);
        });
      }
    },
    onEnd(failure) {
      providerAnswered();
      if (!failure) {
        out.end();
        return;
      }
      const answerFailure = () => {
        if (headSent) {
          // The answer broke after it started: cut the connection so the client sees an incomplete body.
          res.destroy();
          return;
        }
        stampAnswer(res, stamp.requestId, stamp.lifecycle);
        sendProblem(res, toGatewayCode(failure.code), stamp.requestId, {
          detail: failure.detail,
          headers,
          ...(failure.code === 'platform_busy' || failure.code === 'service_unavailable'
            ? { retryAfterSeconds: 1 }
            : {}),
        });
      };
      if (!wasNotForwarded(failure.code)) return answerFailure();
      // The unit is given back before the answer leaves: a caller that reads /v1/me next sees it uncounted.
      void deps.decisions
        .refund(keyHash)
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'refund failed'))
        .then(answerFailure);
    },
    onWhole(head, body) {
      providerAnswered();
      if (acceptsGzip(req) && body.length >= deps.gzipMinBytes) {
        const headers = Object.assign({}, head.headers, { 'content-length': String(body.length) });
        sink.onHead({ status: head.status, contentType: head.contentType, headers });
        sink.onChunk(body);
        sink.onEnd();
        return;
      }
      // The common case: every field goes to node in one writeHead, and headers and body leave in one write.
      headSent = true;
      res.writeHead(head.status, wholeAnswerFields(stamp, head, headers, body.length));
      res.end(body);
    },
  };
  const handle = deps.caller.call(
    {
      request_id: stamp.requestId,
      provider: call.provider,
      account_id: verdict.accountId ?? '',
      path: call.path,
      query: call.query,
      method: call.method,
      ...(call.body !== undefined ? { body: call.body } : {}),
      timeout_ms: deps.upstreamTimeoutMs,
      trace_context: traceContext,
      key_id: verdict.keyId,
      window_bytes: ANSWER_WINDOW_BYTES,
    },
    sink,
  );
  res.on('close', () => {
    clearTimeout(stalled);
    if (!res.writableFinished) handle.cancel();
  });
}

/**
 * Answer bytes provider-proxy may have on the way to one client beyond what its socket took: bounds what a slow
 * client costs this process (else up to UPSTREAM_MAX_ANSWER_BYTES each) and keeps 16 chunks in flight for a fast one.
 */
const ANSWER_WINDOW_BYTES = 1024 * 1024;
const SEND_TIMEOUT_MS = 60_000;

/** Bytes the connection handed to the kernel (a socket's bytesWritten also counts what still waits in it). */
const takenBySocket = (res: ServerResponse): number =>
  res.socket ? res.socket.bytesWritten - res.socket.writableLength : 0;

/** Framing is edge-auth's own: its length, encoding and connection handling, never the platform's. */
const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

/** Fields only the gateway sets on a forwarded answer: a platform header of the same name is not passed on. */
const GATEWAY_FIELDS: ReadonlySet<string> = new Set([
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'deprecation',
  'sunset',
  'link',
]);

/** A platform answer header provider-proxy passed on that goes to the client: neither framing nor the gateway's own. */
function isPassedOn(name: string): boolean {
  const lower = name.toLowerCase();
  return !FRAMING_HEADERS.has(lower) && !GATEWAY_FIELDS.has(lower);
}

/**
 * Every field of a forwarded answer that came whole, as the flat list (name, value, ...) writeHead takes as it is when
 * no field was set before (sendProblemFields): the request's stamp, the platform answer headers provider-proxy passes
 * on but framing and the gateway's own fields, the gateway's RateLimit fields, then the content type and length.
 */
function wholeAnswerFields(
  stamp: AnswerStamp,
  head: ResponseHeadInfo,
  gatewayHeaders: Record<string, string>,
  length: number,
): string[] {
  const fields = ['X-Request-Id', stamp.requestId];
  for (const name in stamp.lifecycle) fields.push(name, stamp.lifecycle[name]!);
  for (const name in head.headers) {
    if (isPassedOn(name)) fields.push(name, head.headers[name]!);
  }
  for (const name in gatewayHeaders) fields.push(name, gatewayHeaders[name]!);
  fields.push('Content-Type', head.contentType, 'Content-Length', String(length));
  return fields;
}

/**
 * The fields of a streamed answer but its framing: first the platform answer headers provider-proxy passes on
 * (Retry-After and each adapter's own, such as search-ads's X-Rate-Limit), so a platform error comes back as the
 * platform sent it, its rate-limit headers included; then the gateway's own (RateLimit); then the platform's content
 * type. One setHeader per field: the stamp is already set, and res.writeHead(status, object) then merges the object on
 * node's slow path (the same header bytes cost 6.5 µs that way, 1.8 µs this way).
 */
function setAnswerFields(res: ServerResponse, head: ResponseHeadInfo, gatewayHeaders: Record<string, string>): void {
  for (const name in head.headers) {
    if (isPassedOn(name)) res.setHeader(name, head.headers[name]!);
  }
  for (const name in gatewayHeaders) res.setHeader(name, gatewayHeaders[name]!);
  res.setHeader('Content-Type', head.contentType);
}

/** Business attributes of the request span: who, what and the actor's verdict, never the key or the query. */
function annotate(
  span: Span | undefined,
  requestId: string,
  verdict: Verdict,
  provider?: string,
  endpoint?: string,
): void {
  if (span === undefined) return;
  setSafeAttributes(span, {
    'gateway.request_id': requestId,
    'gateway.key_id': verdict.keyId,
    'gateway.provider': provider,
    'gateway.endpoint': endpoint,
    'gateway.decision': verdict.ok ? 'admitted' : verdict.code,
  });
}

function reject(res: ServerResponse, requestId: string, verdict: Reject): void {
  sendProblem(res, verdict.code, requestId, {
    detail: verdict.detail || undefined,
    retryAfterSeconds: verdict.code === 'service_unavailable' ? 1 : verdict.retryAfterSeconds,
    headers: rateLimitHeaders(verdict.rate, verdict.quota),
  });
}

const NO_FIELDS: Record<string, string> = {};

/** X-Request-Id, and the lifecycle fields of a retiring version's path: set on every answer before its own fields. */
function stampAnswer(res: ServerResponse, requestId: string, lifecycle: Record<string, string>): void {
  res.setHeader('X-Request-Id', requestId);
  for (const name in lifecycle) res.setHeader(name, lifecycle[name]!);
}

/** The fields of a held refusal but the problem's own, as sendProblemFields takes them. */
function heldRefusalFields(requestId: string, lifecycle: Record<string, string>, held: Reject): string[] {
  const fields = ['X-Request-Id', requestId];
  for (const name in lifecycle) fields.push(name, lifecycle[name]!);
  const limits = heldLimitFields(held);
  for (let i = 0; i < limits.length; i++) fields.push(limits[i]!);
  return fields;
}

interface RenderedLimits {
  rate: Reject['rate'];
  quota: Reject['quota'];
  fields: readonly string[];
}

/**
 * RateLimit fields of held refusals, rendered once per state: a hold hands out the same rate and quota objects until a
 * second ticks off their reset (RefusalHold), so a key refused thousands of times a second is rendered about once.
 */
const renderedLimits = new WeakMap<object, RenderedLimits>();

function heldLimitFields(verdict: Reject): readonly string[] {
  const anchor = verdict.rate ?? verdict.quota;
  if (anchor === undefined) return [];
  const rendered = renderedLimits.get(anchor);
  if (rendered !== undefined && rendered.rate === verdict.rate && rendered.quota === verdict.quota)
    return rendered.fields;
  const fields = Object.entries(rateLimitHeaders(verdict.rate, verdict.quota)).flat();
  renderedLimits.set(anchor, { rate: verdict.rate, quota: verdict.quota, fields });
  return fields;
}

function limitHeaders(verdict: Extract<Verdict, { ok: true }>): Record<string, string> {
  return rateLimitHeaders(verdict.rate, verdict.quota);
}

function acceptsGzip(req: IncomingMessage): boolean {
  const accept = req.headers['accept-encoding'];
  return typeof accept === 'string' && /\bgzip\b/.test(accept);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** GET /v1/deprecations/{provider}/{version}: the human-readable page the Link header of a retiring version names. */
function sendDeprecationPage(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  target: { provider: string; version: string },
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendProblem(res, 'path_not_allowed', requestId);
  const page = deprecationPage(target.provider, target.version);
  if (page === undefined) return sendProblem(res, 'not_found', requestId);
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(page),
    'Cache-Control': 'public, max-age=3600',
    'Content-Security-Policy': "default-src 'none'",
  });
  res.end(req.method === 'HEAD' ? undefined : page);
}

/** GET /v1/deprecations: public documentation of the platform API versions being retired (no key needed). */
function sendDeprecations(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendProblem(res, 'path_not_allowed', requestId);
  const body = JSON.stringify(deprecationsDocument());
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'public, max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
