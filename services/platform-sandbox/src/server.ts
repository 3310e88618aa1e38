import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@gateway/telemetry';
import type { SandboxConfig } from './config';
import { CONTROL_PREFIX, ControlApi } from './control/control.handler';
import { RequestLog } from './control/request-log';
import { FaultInjector } from './faults/fault.injector';
import { FaultRoutes } from './faults/fault.routes';
import { FaultTable } from './faults/fault.table';
import { AppQpsLimiter } from './grants/app-qps.limiter';
import { GrantStore } from './grants/grant.store';
import { PORTAL_PATH, PortalApi } from './grants/portal.handler';
import { BodyTooLargeError, parseForm, readBody, sendHtml, sendJson, sendRedirect, splitTarget } from './http/http-io';
import { findModule, type ModuleReply, type PlatformModule } from './platform-modules';
import { SandboxWorld } from './video-ads/data/world';
import { apiError, envelope, RequestIdFactory, VideoAdsCode, type ApiResult } from './video-ads/envelope';
import { ReportCache } from './video-ads/report/report.engine';
import { OPEN_API_PREFIX, VideoAdsApi } from './video-ads/video-ads.api';
import { createVideoShopModule } from './video-shop/video-shop.module';
import { createMarketplaceModule } from './marketplace/marketplace.module';
import { createSearchAdsModule } from './search-ads/search-ads.module';

export interface SandboxDependencies {
  /** Milliseconds since the epoch; tests move it to expire auth codes or step over the QPS window. */
  now?: () => number;
  logger?: Logger;
}

export interface SandboxServer {
  server: Server;
  grants: GrantStore;
  /** Present only when the control surface is on (NODE_ENV test or development). */
  requestLog: RequestLog | undefined;
  /** Resolves with the base URL, e.g. http://127.0.0.1:45123 (PORT=0 picks a free port). */
  listen(): Promise<string>;
  url(): string;
  /** Stops accepting, lets in-flight requests finish, then drops what is left after a short grace period. */
  close(): Promise<void>;
}

const OPEN_API_ROOT = `${OPEN_API_PREFIX}/`;
const CLOSE_GRACE_MS = 2000;

/**
 * The platform simulator on plain node:http: it is the upstream of benchmarks, so a GET without a body is
 * answered synchronously with no framework in between.
 */
export function createSandboxServer(config: SandboxConfig, deps: SandboxDependencies = {}): SandboxServer {
  const now = deps.now ?? Date.now;
  const logger = deps.logger;
  const gatewayApp = {
    app_id: config.SANDBOX_APP_ID,
    secret: config.SANDBOX_APP_SECRET,
    name: 'Data Gateway',
    redirectUris: config.SANDBOX_APP_REDIRECT_URIS,
  };
  const grants = new GrantStore([gatewayApp], now, config.SANDBOX_AUTH_CODE_TTL_MS);
  const api = new VideoAdsApi(
    { grants, world: new SandboxWorld(), reports: new ReportCache(), now },
    new AppQpsLimiter(config.SANDBOX_APP_QPS, now),
  );
  const portal = new PortalApi(grants);
  // Further platforms register here: each owns its path prefixes and, in test/dev, /_sandbox/<prefix> routes.
  const modules: PlatformModule[] = [
    createVideoShopModule(config, { now, logger }),
    createMarketplaceModule(config, { now, logger }),
    createSearchAdsModule(config, { now, logger }),
  ];
  const controlOn = config.NODE_ENV === 'test' || config.NODE_ENV === 'development';
  const requestLog = controlOn ? new RequestLog(config.SANDBOX_REQUEST_LOG_LIMIT, now) : undefined;
  const moduleControls = modules.flatMap((platform) => (platform.control ? [platform.control] : []));
  const faultTable = controlOn ? new FaultTable(now) : undefined;
  const faults = faultTable
    ? new FaultInjector(faultTable, modules, { now, searchAdsHourLimit: config.SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT })
    : undefined;
  const control = requestLog
    ? new ControlApi(
        requestLog,
        grants,
        config.SANDBOX_APP_ID,
        moduleControls,
        faultTable && new FaultRoutes(faultTable),
      )
    : undefined;
  const requestIds = new RequestIdFactory(now);
  const latency = config.SANDBOX_LATENCY_MS;

  function answerApi(res: ServerResponse, result: ApiResult): void {
    const payload = envelope(result, requestIds.next());
    if (latency > 0) setTimeout(() => sendJson(res, result.status ?? 200, payload), latency);
    else sendJson(res, result.status ?? 200, payload);
  }

  function answerModule(res: ServerResponse, reply: ModuleReply): void {
    if (reply.kind === 'redirect') sendRedirect(res, reply.location);
    else if (reply.kind === 'html') sendHtml(res, reply.status, reply.html);
    else if ((reply.delayMs ?? latency) > 0) {
      setTimeout(() => sendJson(res, reply.status, reply.payload, reply.headers), reply.delayMs ?? latency);
    } else sendJson(res, reply.status, reply.payload, reply.headers);
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string): void {
    const method = req.method ?? 'GET';

    if (path.startsWith(OPEN_API_ROOT)) {
      let result: ApiResult;
      try {
        const token = req.headers['access-token'];
        result = api.handle(method, path.slice(OPEN_API_PREFIX.length), query, token as string | undefined, body);
      } catch (error) {
        logger?.error({ err: error, path }, 'handler failed');
        result = apiError(VideoAdsCode.SERVER_ERROR, 'Internal service error. Please retry later.');
      }
      answerApi(res, result);
      return;
    }
    const platform = findModule(modules, path);
    if (platform) {
      const reply = platform.handle({ method, path, query, headers: req.headers, body });
      if (reply instanceof Promise) {
        reply.then(
          (done) => answerModule(res, done),
          (error: unknown) => {
            logger?.error({ err: error, path }, 'module failed');
            if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
          },
        );
      } else answerModule(res, reply);
      return;
    }
    if (path === PORTAL_PATH && (method === 'GET' || method === 'POST')) {
      const reply = portal.handle(method, parseForm(method === 'GET' ? query : body));
      if (reply.kind === 'redirect') sendRedirect(res, reply.location);
      else sendHtml(res, reply.status, reply.html);
      return;
    }
    // The platform answers unknown paths with HTTP 404; we keep its envelope so clients can still parse it.
    answerApi(res, apiError(VideoAdsCode.NOT_FOUND, `Not found: ${path}`, 404));
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const { path, query } = splitTarget(req.url ?? '/');
    if (path === '/healthz') {
      sendJson(res, 200, { status: 'ok' });
      return;
    }
    const isControl = path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
    if (isControl && !control) {
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const proceed = (body: string): void => {
      // Logged on arrival, also when a fault answers: tests count what reached the platform.
      if (!isControl) requestLog?.record(req.method ?? 'GET', path, query, req.headers, body);
      const answer = (): void => {
        if (isControl && control) {
          const reply = control.handle(req.method ?? 'GET', path, query, body);
          sendJson(res, reply.status, reply.payload);
          return;
        }
        dispatch(req, res, path, query, body);
      };
      if (!faults?.intercept(req, res, path, answer)) answer();
    };
    if (!hasBody) {
      proceed('');
      return;
    }
    readBody(req).then(proceed, (error: unknown) => {
      if (error instanceof BodyTooLargeError) sendJson(res, 413, { error: error.message });
      else res.destroy();
    });
  }

  const server = createServer((req, res) => {
    try {
      onRequest(req, res);
    } catch (error) {
      logger?.error({ err: error }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
    }
  });

  const url = (): string => {
    const address = server.address() as AddressInfo | null;
    if (!address) throw new Error('the sandbox is not listening');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  };

  return {
    server,
    grants,
    requestLog,
    url,
    listen: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.PORT, config.HOST, () => {
          server.off('error', reject);
          resolve(url());
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
