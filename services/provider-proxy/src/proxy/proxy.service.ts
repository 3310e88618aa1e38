import { performance } from 'node:perf_hooks';
import {
  context as otelContext,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import {
  isProviderId,
  MAX_REQUEST_BODY_BYTES,
  ownedParamsOf,
  validateBody,
  type EndpointSpec,
} from '@gateway/catalogue';
import type { FetchRequest__Output } from '@gateway/proto';
import { isWellFormedAccountId, type CredentialsWrite } from '@gateway/store';
import { leavesNoTrace, recordsNoChildren, setSafeAttributes, unsampledParent, type Logger } from '@gateway/telemetry';
import type { AdapterRegistry } from '../adapters/adapter.registry';
import type { ConnectionCredentials, PlatformCall as AdapterCall, ProviderAdapter } from '../adapters/provider-adapter';
import { ownedBodyField } from '../adapters/query-filter';
import { UnusableCredentialsError } from '../credentials/connection.source';
import type { CredentialCache, CredentialResult } from '../credentials/credential.cache';
import type { RenewalResult, TokenRenewer } from '../credentials/token-renewer';
import { statusClass, type ProxyMetrics } from '../ops/proxy.metrics';
import { DeadlineExceededError, upstreamFailure } from '../upstream/upstream-failure';
import type { AnswerHeaders } from '../upstream/answer-headers';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from '../upstream/upstream.client';
import { Cancellation, type CancelSignal } from './cancellation';
import { failure, type ProxyFailure } from './proxy-failure';

export interface AnswerHead {
  status: number;
  contentType: string;
  headers: Record<string, string>;
}

/**
 * Where one request's answer goes (a unary response or Exchange frames). The proxy calls either `fail`
 * alone, or `head`, then `write` any number of times, then `end` or `fail` (the body broke off). After the
 * request's signal is aborted (caller cancelled, stream gone) nothing more is called.
 */
export interface ResponseSink {
  head(head: AnswerHead): void;
  /**
   * Takes a chunk of the body; a promise when the next chunk must wait for it (the platform body is read no faster than
   * the caller takes it), undefined when it was taken at once (a whole answer usually is): awaiting nothing would
   * still cost the request a turn of the microtask queue.
   */
  write(chunk: Buffer): Promise<void> | undefined;
  end(): void;
  fail(failure: ProxyFailure): void;
}

export interface ProxyServiceOptions {
  registry: AdapterRegistry;
  credentials: CredentialCache;
  /** Renews refreshable and minted tokens, single-flight across replicas. */
  renewer: TokenRenewer;
  upstream: UpstreamClient;
  metrics: ProxyMetrics;
  logger: Logger;
  /** Deadline for the answer head when the request carries no timeout_ms. */
  defaultTimeoutMs: number;
  /** Upper bound for a request's timeout_ms. */
  maxTimeoutMs: number;
  /** Largest answer body passed on (UPSTREAM_MAX_ANSWER_BYTES); unset: no bound. */
  maxAnswerBytes?: number;
}

export interface ExecuteOptions {
  /** Aborted when the caller gives up: Cancel frame, broken stream, cancelled unary call, shutdown. */
  signal: CancelSignal;
  /** Trace parent: the gRPC call's context for Fetch, the root context for Exchange. */
  baseContext: Context;
  transport: 'fetch' | 'exchange';
}

/** Platform error envelopes are small; a body that ends within this many bytes is checked for token errors. */
const PEEK_BYTES = 16 * 1024;
/** Answer headers every platform's may pass on besides the content type; adapters add their own. */
const FORWARDED_RESPONSE_HEADERS: readonly string[] = ['retry-after'];

const tracer = trace.getTracer('@gateway/provider-proxy');
/**
 * The span of a request that can leave no trace (`leavesNoTrace`): the API's no-op spans would still make a context
 * for every span started and for the suppressed platform call, three per request.
 */
const UNTRACED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

class CallerGoneError extends Error {
  constructor() {
    super('the caller cancelled the request');
    this.name = 'CallerGoneError';
  }
}

interface PlatformAnswer {
  response: UpstreamResponse;
  /** Records the platform call's duration; called once when its body is done. */
  observe: (outcome: string) => void;
}

type PlatformCall = { ok: true; answer: PlatformAnswer } | { ok: false; failure: ProxyFailure };

type ConnectionLookup =
  { ok: true; credentials: ConnectionCredentials; fromCache: boolean } | { ok: false; failure: ProxyFailure };

interface RequestScope {
  request: FetchRequest__Output;
  provider: string;
  adapter: ProviderAdapter;
  endpoint: EndpointSpec;
  call: AdapterCall;
  deadline: number;
  timeoutMs: number;
  abort: CancelSignal;
  span: Span;
}

/**
 * The provider-proxy pipeline, the same for every transport and provider: allowlist, connection and
 * credentials, per-app QPS guard, the platform call with a deadline, one reload-and-retry when a cached
 * token was refused, then the platform's own status, content type and body bytes, unchanged.
 */
export class ProxyService {
  constructor(private readonly options: ProxyServiceOptions) {}

  /** The request's trace parent: W3C trace_context of the message when present, else `base`. */
  static parentContext(base: Context, traceContext: Record<string, string> | undefined): Context {
    return traceContext && Object.keys(traceContext).length > 0 ? propagation.extract(base, traceContext) : base;
  }

  /** Never rejects: every outcome goes to the sink (or nowhere, once the caller is gone). */
  async execute(request: FetchRequest__Output, sink: ResponseSink, options: ExecuteOptions): Promise<void> {
    const { metrics } = this.options;
    const providerLabel = isProviderId(request.provider) ? request.provider : 'unknown';
    const inFlight = metrics.series.inFlight(providerLabel, options.transport);
    inFlight.inc();
    const parent = ProxyService.parentContext(options.baseContext, request.trace_context);
    try {
      if (leavesNoTrace(parent)) {
        await otelContext.with(parent, () => this.run(request, sink, options.signal, UNTRACED, providerLabel));
        return;
      }
      const unsampled = unsampledParent(parent);
      if (unsampled !== undefined) {
        // No span would be recorded: the request runs in its caller's context, which its log lines carry.
        await otelContext.with(parent, () => this.run(request, sink, options.signal, unsampled, providerLabel));
        return;
      }
      // The server side of the caller's request (on Exchange no gRPC span exists per request); the platform call
      // is its CLIENT child (platformSpan).
      const kind = options.transport === 'exchange' ? SpanKind.SERVER : SpanKind.INTERNAL;
      await tracer.startActiveSpan('provider-proxy fetch', { kind }, parent, async (span) => {
        setSafeAttributes(span, {
          'gateway.provider': providerLabel,
          'gateway.key_id': request.key_id || undefined,
          'gateway.account_id': request.account_id || undefined,
          'gateway.request_id': request.request_id || undefined,
          'gateway.transport': options.transport,
        });
        try {
          await this.run(request, sink, options.signal, span, providerLabel);
        } finally {
          span.end();
        }
      });
    } finally {
      inFlight.dec();
    }
  }

  private async run(
    request: FetchRequest__Output,
    sink: ResponseSink,
    signal: CancelSignal,
    span: Span,
    providerLabel: string,
  ): Promise<void> {
    const startedAt = performance.now();
    let headSent = false;
    // Never the query or a path off the allowlist: either may carry what a caller should not have sent.
    const log: Record<string, unknown> = {
      request_id: request.request_id || undefined,
      key_id: request.key_id || undefined,
      account_id: request.account_id || undefined,
      provider: providerLabel,
    };

    const fail = (problem: ProxyFailure, cause?: unknown) => {
      if (signal.aborted) return;
      this.options.metrics.failures.inc({ provider: providerLabel, code: problem.code });
      span.setStatus({ code: SpanStatusCode.ERROR, message: problem.code });
      setSafeAttributes(span, { 'gateway.failure.code': problem.code });
      const quiet = problem.code === 'path_not_allowed' || problem.code === 'invalid_request';
      this.options.logger[quiet ? 'info' : 'warn'](
        Object.assign({}, log, {
          failure: problem.code,
          after_head: headSent,
          error_code: cause === undefined ? undefined : errorName(cause),
          duration_ms: Math.round(performance.now() - startedAt),
        }),
        'provider-proxy request failed',
      );
      sink.fail(problem);
    };

    const method = request.method || 'GET';
    const resolution = this.options.registry.resolve(request.provider, method, request.path);
    if (!resolution.ok) return fail(resolution.failure);
    const { adapter, endpoint } = resolution;
    log.endpoint = endpoint.path;
    setSafeAttributes(span, { 'gateway.endpoint': endpoint.path });
    if (!isWellFormedAccountId(request.account_id)) {
      return fail(failure('invalid_request', 'account_id is missing or malformed'));
    }
    const body = checkedBody(endpoint, request.body);
    if (!body.ok) return fail(body.failure);
    const call: AdapterCall = {
      endpoint,
      method: endpoint.method,
      path: request.path,
      query: request.query,
      body: body.bytes,
    };

    const timeoutMs = Math.min(this.options.maxTimeoutMs, request.timeout_ms || this.options.defaultTimeoutMs);
    const deadline = Date.now() + timeoutMs;
    const controller = new Cancellation();
    const onCallerGone = () => controller.abort(new CallerGoneError());
    if (signal.aborted) return;
    signal.addEventListener('abort', onCallerGone, { once: true });
    // The contract (provider_proxy.proto): timeout_ms bounds the wait for the answer head (QPS guard, connect,
    // token retry included).
    const timer = setTimeout(() => controller.abort(new DeadlineExceededError(timeoutMs)), timeoutMs);
    const scope: RequestScope = {
      request,
      provider: adapter.provider,
      adapter,
      endpoint,
      call,
      deadline,
      timeoutMs,
      abort: controller,
      span,
    };

    let answer: PlatformAnswer | undefined;
    try {
      // A cached connection whose token is not due is the common case: it is taken without a turn of the
      // microtask queue, as the guard's free token is (callPlatform).
      const cached = this.options.credentials.fresh(request.account_id);
      const connection =
        cached !== undefined
          ? this.connectionFrom(request.account_id, cached, adapter.provider)
          : await this.connection(request.account_id, adapter.provider);
      if (!connection.ok) return fail(connection.failure);
      if (signal.aborted) return;
      const current = this.options.renewer.isDue(adapter, connection.credentials)
        ? await this.renewed(scope, connection)
        : { ok: true as const, credentials: connection.credentials };
      if (!current.ok) return fail(current.failure);

      const first = await this.callPlatform(scope, current.credentials);
      if (!first.ok) return fail(first.failure);
      answer = first.answer;

      // The platform refused the token: renew it (or, for a long-lived token, read a re-grant) and retry once.
      // The platform's own auth error never reaches the caller: client SDKs would try to refresh through us.
      if (answer.response.complete && adapter.isTokenError(answer.response.status, answer.response.prefix)) {
        answer.observe(statusClass(answer.response.status));
        answer = undefined;
        const retry = await this.afterTokenError(
          scope,
          Object.assign({}, connection, { credentials: current.credentials }),
        );
        if (!retry.ok) return fail(retry.failure);
        answer = retry.answer;
        if (answer.response.complete && adapter.isTokenError(answer.response.status, answer.response.prefix)) {
          return fail(
            failure('connection_unavailable', `the ${adapter.provider} platform refused the connection's new token`),
          );
        }
      }

      clearTimeout(timer);
      const { response } = answer;
      setSafeAttributes(span, { 'http.response.status_code': response.status });
      const maxBytes = this.options.maxAnswerBytes ?? Number.POSITIVE_INFINITY;
      const declared = Number(response.headers.get('content-length') || Number.NaN);
      if (declared > maxBytes || response.prefix.length > maxBytes) {
        answer.observe('too_large');
        return fail(tooLarge(adapter.provider, endpoint.path, maxBytes));
      }
      sink.head({
        status: response.status,
        contentType: response.headers.get('content-type'),
        headers: forwardedHeaders(response.headers, adapter.responseHeadersOf?.(endpoint) ?? adapter.responseHeaders),
      });
      headSent = true;
      if (response.prefix.length > 0) {
        const taken = sink.write(response.prefix);
        if (taken !== undefined) await taken;
      }
      if (!response.complete) {
        let size = response.prefix.length;
        for (;;) {
          const chunk = await response.rest.read();
          if (chunk === undefined) break;
          if (signal.aborted) return;
          size += chunk.length;
          if (size > maxBytes) {
            // No length was announced: the caller already has the head, so the answer is cut off.
            answer.observe('too_large');
            return fail(tooLarge(adapter.provider, endpoint.path, maxBytes));
          }
          const taken = sink.write(chunk);
          if (taken !== undefined) await taken;
        }
      }
      if (signal.aborted) return;
      answer.observe(statusClass(response.status));
      answer = undefined;
      // Built only when written: at the default level this line is off, and its fields cost 2 % of a saturated proxy.
      if (this.options.logger.isLevelEnabled('debug')) {
        this.options.logger.debug(
          Object.assign({}, log, {
            status: response.status,
            duration_ms: Math.round(performance.now() - startedAt),
          }),
          'provider-proxy request done',
        );
      }
      sink.end();
    } catch (error) {
      answer?.observe('error');
      if (signal.aborted) return;
      const reason: unknown = controller.aborted ? controller.reason : error;
      const problem =
        reason instanceof DeadlineExceededError || isPlatformError(reason)
          ? upstreamFailure(reason, adapter.provider, endpoint.path)
          : failure('internal_error', `${adapter.provider} ${endpoint.path} failed inside the gateway`);
      if (problem.code === 'internal_error') {
        this.options.logger.error(Object.assign({}, log, { err: safeError(error) }), 'provider-proxy bug');
      }
      fail(problem, reason);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCallerGone);
      // Releases the socket of an answer that was not read to its end (failure, cancel).
      answer?.response.rest.destroy();
    }
  }

  private async connection(accountId: string, provider: string): Promise<ConnectionLookup> {
    const { metrics, logger } = this.options;
    let result: CredentialResult;
    try {
      result = await this.options.credentials.get(accountId);
    } catch (error) {
      metrics.credentialLookups.inc({ result: 'error' });
      if (error instanceof UnusableCredentialsError) {
        logger.error({ account_id: accountId, err: safeError(error.cause) }, 'stored credentials cannot be opened');
        return { ok: false, failure: failure('connection_unavailable', 'the connection has no usable credentials') };
      }
      logger.error({ account_id: accountId, err: safeError(error) }, 'connection lookup failed');
      return { ok: false, failure: failure('service_unavailable', 'the connection could not be read; retry shortly') };
    }
    return this.connectionFrom(accountId, result, provider);
  }

  /** The connection a credential lookup found, or why it cannot be used for `provider`. */
  private connectionFrom(accountId: string, result: CredentialResult, provider: string): ConnectionLookup {
    const { metrics } = this.options;
    if (!result.ok) {
      metrics.credentialLookups.inc({ result: 'miss' });
      if (result.reason === 'needs_regrant') return { ok: false, failure: needsRegrant(accountId) };
      const detail = result.reason === 'not_found' ? 'there is no such connection' : 'the connection is not active';
      return { ok: false, failure: failure('connection_unavailable', detail) };
    }
    metrics.credentialLookups.inc({ result: result.fromCache ? 'hit' : 'miss' });
    if (result.provider !== provider) {
      return {
        ok: false,
        failure: failure('connection_unavailable', `the connection is not a ${provider} connection`),
      };
    }
    return { ok: true, credentials: result.credentials, fromCache: result.fromCache };
  }

  /** Tokens due for renewal are renewed before the call; a renewal that fails leaves usable tokens in use. */
  private async renewed(
    scope: RequestScope,
    connection: { credentials: ConnectionCredentials },
  ): Promise<{ ok: true; credentials: ConnectionCredentials } | { ok: false; failure: ProxyFailure }> {
    const renewal = await this.renew(scope, connection.credentials, false);
    if (renewal.ok) return renewal;
    const expiresAt = Date.parse(connection.credentials.access_token_expires_at ?? '');
    if (renewal.reason === 'unavailable' && expiresAt > Date.now()) {
      return { ok: true, credentials: connection.credentials };
    }
    return { ok: false, failure: renewalFailure(scope, renewal) };
  }

  /** After the platform refused a token: the outcome of the one retry with new tokens, or why there is none. */
  private async afterTokenError(
    scope: RequestScope,
    used: { credentials: ConnectionCredentials; fromCache: boolean },
  ): Promise<PlatformCall> {
    const { credentials, metrics } = this.options;
    const accountId = scope.request.account_id;
    if (scope.adapter.tokens.kind !== 'long-lived') {
      const renewal = await this.renew(scope, used.credentials, true);
      if (!renewal.ok) return { ok: false, failure: renewalFailure(scope, renewal) };
      return this.callPlatform(scope, renewal.credentials);
    }
    // A long-lived token dies when the customer cancels the grant, and the customer may have re-granted since
    // we cached it: read the connection again and retry only with a different token.
    credentials.invalidate(accountId, used.credentials.access_token);
    const reloaded = await this.connection(accountId, scope.provider);
    const changed = reloaded.ok && reloaded.credentials.access_token !== used.credentials.access_token;
    metrics.tokenReloads.inc({ provider: scope.provider, outcome: changed ? 'retried' : 'unchanged' });
    setSafeAttributes(scope.span, { 'gateway.token_reloaded': true, 'gateway.token_retried': changed });
    if (!reloaded.ok) return reloaded;
    if (!changed) {
      // The stored token is the refused one: the grant itself is dead, unless the customer re-granted just now.
      credentials.invalidate(accountId, used.credentials.access_token);
      if ((await this.markNeedsRegrant(accountId, used.credentials)) !== 'superseded') {
        return { ok: false, failure: needsRegrant(accountId) };
      }
      const regranted = await this.connection(accountId, scope.provider);
      return regranted.ok ? this.callPlatform(scope, regranted.credentials) : regranted;
    }
    return this.callPlatform(scope, reloaded.credentials);
  }

  private async renew(scope: RequestScope, seen: ConnectionCredentials, refused: boolean): Promise<RenewalResult> {
    const started = performance.now();
    const result = await this.options.renewer.renew({
      accountId: scope.request.account_id,
      adapter: scope.adapter,
      seen,
      refused,
      deadline: scope.deadline,
      // The caller may stop waiting (cancel, deadline); the renewal it started goes on to store its tokens.
      stopWaiting: scope.abort,
    });
    setSafeAttributes(scope.span, {
      'gateway.token_renewal': result.ok ? (result.renewed ? 'renewed' : 'joined') : result.reason,
      'gateway.token_renewal_ms': Math.round(performance.now() - started),
    });
    return result;
  }

  private async markNeedsRegrant(
    accountId: string,
    refused: ConnectionCredentials,
  ): Promise<CredentialsWrite | 'failed'> {
    try {
      return await this.options.renewer.markNeedsRegrant(accountId, refused);
    } catch (error) {
      this.options.logger.warn({ account_id: accountId, err: safeError(error) }, 'could not mark needs_regrant');
      return 'failed';
    }
  }

  private async callPlatform(scope: RequestScope, connectionCredentials: ConnectionCredentials): Promise<PlatformCall> {
    const { adapter, endpoint, abort, provider } = scope;
    const { metrics } = this.options;
    const prepared = adapter.prepare(scope.call, connectionCredentials);
    if (!prepared.ok) return prepared;

    const admitted = adapter.guard.admit(scope.deadline, abort);
    const admission = admitted instanceof Promise ? await admitted : admitted;
    metrics.series.guardWaiting(provider).set(adapter.guard.waiting);
    if (!admission.ok) {
      if (admission.reason === 'aborted') throw abort.reason;
      metrics.guardRejections.inc({ provider });
      return {
        ok: false,
        failure: failure('platform_busy', `the ${provider} app is at its request rate; retry shortly`),
      };
    }
    if (admission.waitedMs > 0) {
      metrics.guardWait.observe({ provider }, admission.waitedMs / 1000);
      scope.span.addEvent('qps guard wait', { 'gateway.qps_guard.wait_ms': admission.waitedMs });
    }

    const remainingMs = scope.deadline - Date.now();
    if (remainingMs <= 0) throw new DeadlineExceededError(scope.timeoutMs);
    const sentAt = performance.now();
    const platformSpan = startPlatformSpan(scope, prepared.request);
    // The undici auto-instrumentation would record the URL (query with our app secret) and send our trace
    // headers to the platform; platformSpan describes the call with safe attributes instead.
    let response: UpstreamResponse;
    try {
      const send = () =>
        this.options.upstream.send(prepared.request, {
          signal: abort,
          headersTimeoutMs: remainingMs,
          prefixBytes: PEEK_BYTES,
        });
      // Nothing to keep out of the call when it can leave no trace (UNTRACED).
      response = await (scope.span === UNTRACED
        ? send()
        : otelContext.with(suppressTracing(otelContext.active()), send));
    } catch (error) {
      endPlatformSpan(platformSpan, undefined, error);
      throw error;
    }
    setSafeAttributes(platformSpan, { 'http.response.status_code': response.status });
    let observed = false;
    const observe = (outcome: string) => {
      if (observed) return;
      observed = true;
      endPlatformSpan(platformSpan, response.status, outcome === 'error' ? outcome : undefined);
      metrics.series.upstream(provider, endpoint.path, outcome).observe((performance.now() - sentAt) / 1000);
    };
    return { ok: true, answer: { response, observe } };
  }
}

/**
 * The CLIENT span of one platform HTTP call: method, host, port and path, never the query (it can carry our app
 * secret) nor any header (the access token). Ends when the answer body is done (see `observe`).
 */
function startPlatformSpan(scope: RequestScope, request: UpstreamRequest): Span {
  // A child of a request span that records nothing would record nothing either: the request's span stands in for it.
  if (scope.span === UNTRACED || recordsNoChildren(scope.span)) return scope.span;
  const span = tracer.startSpan(
    request.method,
    { kind: SpanKind.CLIENT },
    trace.setSpan(otelContext.active(), scope.span),
  );
  if (!span.isRecording()) return span; // no URL parsing per request when nothing is recorded
  const origin = new URL(request.origin);
  const queryStart = request.pathAndQuery.indexOf('?');
  setSafeAttributes(span, {
    'http.request.method': request.method,
    'server.address': origin.hostname,
    'server.port': Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80),
    'url.scheme': origin.protocol.slice(0, -1),
    'url.path': queryStart === -1 ? request.pathAndQuery : request.pathAndQuery.slice(0, queryStart),
    'gateway.provider': scope.provider,
    'gateway.endpoint': scope.endpoint.path,
  });
  return span;
}

function endPlatformSpan(span: Span, status: number | undefined, error: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
    setSafeAttributes(span, { 'error.type': errorName(error) });
  } else if (status !== undefined && status >= 400) {
    // HTTP semantic conventions: a 4xx/5xx answer is an error of the client span.
    span.setStatus({ code: SpanStatusCode.ERROR });
    setSafeAttributes(span, { 'error.type': String(status) });
  }
  span.end();
}

function forwardedHeaders(headers: AnswerHeaders, platformHeaders: readonly string[]): Record<string, string> {
  const forwarded: Record<string, string> = {};
  copyPresent(headers, FORWARDED_RESPONSE_HEADERS, forwarded);
  copyPresent(headers, platformHeaders, forwarded);
  return forwarded;
}

function copyPresent(headers: AnswerHeaders, names: readonly string[], into: Record<string, string>): void {
  for (const name of names) {
    const value = headers.get(name);
    if (value !== '') into[name] = value;
  }
}

function isPlatformError(error: unknown): boolean {
  return upstreamFailure(error, '', '').code !== 'internal_error';
}

function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error instanceof Error) return error.name;
  }
  return typeof error;
}

/** Name, code and stack frames only: messages of network and driver errors can hold URLs. */
function safeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    stack: error.stack?.split('\n').slice(1, 6).join('\n'),
  };
}

/** docs/rest.md: 502 platform_answer_too_large, above UPSTREAM_MAX_ANSWER_BYTES. */
function tooLarge(provider: string, endpointPath: string, maxBytes: number): ProxyFailure {
  return failure(
    'platform_answer_too_large',
    `the ${provider} answer to ${endpointPath} is larger than ${maxBytes} bytes, the most the gateway passes on; ` +
      'ask for less (a smaller page size or a shorter date range)',
  );
}

/** The gateway's answer for a connection whose grant is dead (docs/rest.md: 409 connection_needs_regrant). */
function needsRegrant(accountId: string): ProxyFailure {
  return failure(
    'connection_needs_regrant',
    `the connection ${accountId} must be re-granted in the portal (Connections, Re-grant): the platform no longer ` +
      'accepts its grant. The account id stays the same.',
  );
}

function renewalFailure(scope: RequestScope, renewal: Extract<RenewalResult, { ok: false }>): ProxyFailure {
  if (renewal.reason === 'needs_regrant') return needsRegrant(scope.request.account_id);
  if (renewal.reason === 'inactive') return failure('connection_unavailable', 'the connection is not active');
  return failure('service_unavailable', `the ${scope.provider} connection tokens could not be renewed; retry shortly`);
}

type CheckedBody = { ok: true; bytes: Buffer | undefined } | { ok: false; failure: ProxyFailure };

/**
 * The caller's body, checked again here: only where the endpoint takes one, at most MAX_REQUEST_BODY_BYTES
 * (docs/rest.md: 413 payload_too_large), JSON, of its schema, nothing owned.
 */
function checkedBody(endpoint: EndpointSpec, body: Buffer | undefined): CheckedBody {
  if (body === undefined || body.length === 0) {
    return endpoint.body?.required
      ? { ok: false, failure: failure('invalid_request', `${endpoint.path} needs a JSON body`) }
      : { ok: true, bytes: undefined };
  }
  if (endpoint.body === undefined) {
    return { ok: false, failure: failure('invalid_request', `${endpoint.path} takes no body`) };
  }
  if (body.length > MAX_REQUEST_BODY_BYTES) {
    return {
      ok: false,
      failure: failure('payload_too_large', `the body may be at most ${MAX_REQUEST_BODY_BYTES} bytes`),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, failure: failure('invalid_request', 'the body is not valid JSON') };
  }
  const problems = validateBody(endpoint, parsed);
  if (problems.length > 0) return { ok: false, failure: failure('invalid_request', problems.join('; ')) };
  const owned = ownedBodyField(parsed as Record<string, unknown>, ownedParamsOf(endpoint.provider));
  if (owned !== undefined) {
    return {
      ok: false,
      failure: failure('invalid_request', `the body sets ${JSON.stringify(owned)}, which the gateway sets itself`),
    };
  }
  return { ok: true, bytes: body };
}
