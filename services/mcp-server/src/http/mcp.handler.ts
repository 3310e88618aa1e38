import { rateLimitHeaders, type Admit, type DecisionClient, type Reject } from '@gateway/decisions';
import { requestIdOf, sendProblem } from '@gateway/errors';
import { activeTraceContext, sampledTraceparent, type Logger } from '@gateway/telemetry';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import type { AccessTokenVerifier } from '../auth/access-token.verifier';
import { readBearer } from '../auth/bearer-credentials';
import { wwwAuthenticate, type ProtectedResource } from '../auth/protected-resource';
import { createMcpServer } from '../tools/mcp-server.factory';
import { refusal } from '../tools/refusal';
import { callEndpointArgsOf, planForward, type ForwardPlan } from '../tools/call-endpoint.tool';
import type { PrefetchedDecision, RequestContext, ToolDeps } from '../tools/tool-context';
import { chooseResponseMode, type ResponseMode } from './accept';
import { toWebRequest, writeWebResponse } from './web-exchange';

export interface McpHandlerDeps {
  tools: ToolDeps;
  decisions: Pick<DecisionClient, 'decide'>;
  verifier: AccessTokenVerifier;
  resource: ProtectedResource;
  clientAddress: (socketAddress: string | undefined, forwardedFor?: string) => string;
  maxRequestBytes: number;
  /** Test instances only (MCP_ANONYMOUS_KEY): the key of requests without a token. */
  anonymousKeyHash?: string;
  logger: Logger;
}

/** Who is asking, and how to answer (set before the body is read). */
interface Identity {
  requestId: string;
  mode: ResponseMode;
  keyHash: string;
}

/** What authorization leaves for the MCP exchange. */
interface Authorized extends Identity {
  ctx?: RequestContext;
  /** A rate-limited request: tools/call gets a tool error, anything else 429. */
  rateLimited?: Reject;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * POST {mcp_url}: JSON-RPC over stateless Streamable HTTP. Every request is authenticated by one `free` decision
 * of the key's actor (key valid, not revoked, address allowed, one rate unit), so revocation ends access on the
 * next request; the tools of the key's current MCP tier then answer it through a fresh server and transport.
 *
 * A request that is one call_endpoint call also needs a `forward` decision (countRate: false). It is asked in the
 * same event-loop turn as the free one, so the DecisionClient sends both to the key's actor in one batch, where
 * they are decided in order: one round trip, like REST. Should the free decision refuse the request, or the tool
 * never use the verdict, an admitted forward gives its quota unit back (it never reached the platform).
 */
export function mcpPostHandlers(deps: McpHandlerDeps): (RequestHandler | ErrorRequestHandler)[] {
  const identify: RequestHandler = async (req, res, next) => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    const credentials = await readBearer(
      req.headers.authorization,
      deps.verifier,
      deps.resource.resource,
      deps.anonymousKeyHash,
    );
    if (credentials.kind === 'missing') {
      // spec 4.3: a request without a token gets 401; this is how an OAuth client learns where to sign in.
      return sendProblem(res, 'missing_token', requestId, {
        detail: 'send Authorization: Bearer <API_KEY>, or sign in with OAuth (see WWW-Authenticate)',
        headers: { 'WWW-Authenticate': wwwAuthenticate(deps.resource) },
      });
    }
    if (credentials.kind === 'invalid') {
      return sendProblem(res, 'invalid_token', requestId, {
        detail: credentials.reason,
        headers: { 'WWW-Authenticate': wwwAuthenticate(deps.resource, { description: credentials.reason }) },
      });
    }
    const mode = chooseResponseMode(req.headers.accept);
    if (!mode) return notAcceptable(res);
    const identity: Identity = { requestId, mode, keyHash: credentials.keyHash };
    res.locals.identity = identity;
    next();
  };

  const parseBody = express.json({ limit: deps.maxRequestBytes });

  const authorize: RequestHandler = async (req, res, next) => {
    const identity = res.locals.identity as Identity;
    const { keyHash } = identity;
    const ip = deps.clientAddress(req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']));
    const traceContext = activeTraceContext();
    const traceparent = sampledTraceparent(traceContext);
    const base = { keyHash, ip, ...(traceparent ? { traceparent } : {}) };
    const free = deps.decisions.decide({ ...base, intent: 'free' });
    const plan = prefetchablePlan(req.body);
    const forward = plan
      ? deps.decisions.decide({ ...base, intent: 'forward', countRate: false, ...plan.decision })
      : undefined;
    const verdict = await free;
    const prefetched = plan && forward ? { fingerprint: plan.fingerprint, verdict: forward, taken: false } : undefined;
    if (prefetched) res.on('close', () => giveBackUnused(deps, keyHash, prefetched));
    const auth: Authorized = { ...identity };
    if (verdict.ok) {
      auth.ctx = {
        requestId: identity.requestId,
        keyHash,
        ip,
        verdict,
        traceContext,
        ...(prefetched ? { prefetchedForward: prefetched } : {}),
      };
    } else if (verdict.code === 'rate_limited') {
      auth.rateLimited = verdict;
    } else {
      return refuseRequest(res, deps, identity.requestId, verdict);
    }
    res.locals.auth = auth;
    next();
  };

  const serve: RequestHandler = async (req, res) => {
    const auth = res.locals.auth as Authorized;
    if (auth.rateLimited) return answerRateLimited(req.body, res, deps, auth);
    const ctx = auth.ctx!;
    const server = createMcpServer(ctx.verdict.mcpTier, deps.tools, ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: auth.mode === 'json',
    });
    // Closing the server closes its transport and releases both when the exchange is over (or the client left).
    res.on('close', () => void server.close().catch(() => undefined));
    await server.connect(transport);
    const response = await transport.handleRequest(toWebRequest(req, deps.resource.resource), {
      parsedBody: req.body,
    });
    await writeWebResponse(response, res, { ...NO_STORE, ...limitHeaders(ctx.verdict) });
  };

  const onError: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error.type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    if (error.type === 'entity.too.large') return jsonRpcError(res, 413, -32000, 'Request body too large');
    if (error.status === 415 || error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') {
      return jsonRpcError(res, 415, -32000, 'Unsupported Media Type');
    }
    deps.logger.error({ err: error }, 'MCP request failed');
    jsonRpcError(res, 500, -32603, 'Internal error');
  };

  return [identify, parseBody, authorize, serve, onError];
}

/** The forward plan of a request that is one valid call_endpoint call (nothing to ask ahead otherwise). */
function prefetchablePlan(body: unknown): ForwardPlan | undefined {
  const args = callEndpointArgsOf(body);
  if (!args) return undefined;
  const plan = planForward(args);
  return plan.problems.length === 0 ? plan : undefined;
}

/** An admitted forward decision that no tool used (refused request, other tier, client gone) is given back. */
function giveBackUnused(deps: McpHandlerDeps, keyHash: string, prefetched: PrefetchedDecision): void {
  if (prefetched.taken) return;
  prefetched.taken = true;
  void prefetched.verdict.then((verdict) => {
    if (!verdict.ok) return;
    deps.tools.decisions.refund(keyHash).catch((error: unknown) => deps.logger.warn({ err: error }, 'refund failed'));
  });
}

/** GET and DELETE: a stateless server offers no stream and no session (the SDK's stateless mode answers 405). */
export const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  jsonRpcError(res, 405, -32000, 'Method not allowed.');
};

function refuseRequest(res: Response, deps: McpHandlerDeps, requestId: string, verdict: Reject): void {
  const headers: Record<string, string> = { ...rateLimitHeaders(verdict.rate, verdict.quota) };
  if (verdict.code === 'invalid_api_key' || verdict.code === 'key_revoked') {
    headers['WWW-Authenticate'] = wwwAuthenticate(deps.resource, {
      description: verdict.code === 'key_revoked' ? 'the key was revoked' : 'unknown key',
    });
  }
  sendProblem(res, verdict.code, requestId, {
    ...(verdict.detail ? { detail: verdict.detail } : {}),
    ...(verdict.code === 'service_unavailable' ? { retryAfterSeconds: 1 } : {}),
    headers,
  });
}

/**
 * A rate-limited tools/call is answered as the tool's own error result (the assistant reads "rate_limited, wait
 * N s"), so a client never sees a broken exchange for it; any other rate-limited request gets 429.
 */
function answerRateLimited(body: unknown, res: Response, deps: McpHandlerDeps, auth: Authorized): void {
  const reject = auth.rateLimited!;
  const retryAfter = reject.retryAfterSeconds ?? 1;
  const headers = { ...NO_STORE, ...rateLimitHeaders(reject.rate, reject.quota), 'Retry-After': String(retryAfter) };
  const call = body as { jsonrpc?: unknown; method?: unknown; id?: unknown } | undefined;
  const isToolCall =
    call !== null &&
    typeof call === 'object' &&
    !Array.isArray(call) &&
    call.jsonrpc === '2.0' &&
    call.method === 'tools/call' &&
    (typeof call.id === 'string' || typeof call.id === 'number');
  if (!isToolCall) {
    return sendProblem(res, 'rate_limited', auth.requestId, { retryAfterSeconds: retryAfter, headers });
  }
  const message = JSON.stringify({
    jsonrpc: '2.0',
    id: call.id,
    result: refusal(reject, { now: deps.tools.now() }),
  });
  if (auth.mode === 'json') {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(message),
    });
    res.end(message);
  } else {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream' });
    res.end(`event: message\ndata: ${message}\n\n`);
  }
}

function notAcceptable(res: Response): void {
  jsonRpcError(res, 406, -32000, 'Not Acceptable: accept application/json or text/event-stream');
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).set(NO_STORE).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function limitHeaders(verdict: Admit): Record<string, string> {
  return rateLimitHeaders(verdict.rate, verdict.quota);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
