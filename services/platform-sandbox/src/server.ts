import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@gateway/telemetry';
import type { SandboxConfig } from './config';
import { CONTROL_PREFIX, ControlApi } from './control/control.handler';
import { RequestLog } from './control/request-log';
import { FaultInjector } from './faults/fault.injector';
import { FaultRoutes } from './faults/fault.routes';
import { FaultTable } from './faults/fault.table';
import { BodyTooLargeError, readBody, sendHtml, sendJson, sendRedirect, splitTarget } from './http/http-io';
import { findModule, type ModuleReply, type PlatformModule } from './platform-modules';
import { FALLBACK_MODULE, PLATFORM_MODULES, type PlatformModuleName } from './platform-modules.registry';

export interface SandboxDependencies {
  /** Milliseconds since the epoch; tests move it to expire auth codes or step over the QPS window. */
  now?: () => number;
  logger?: Logger;
}

export interface SandboxServer {
  server: Server;
  /** The registered platform modules (platform-modules.registry.ts), in order. */
  modules: readonly PlatformModule[];
  /** Present only when the control surface is on (NODE_ENV test or development). */
  requestLog: RequestLog | undefined;
  /** Resolves with the base URL, e.g. http://127.0.0.1:45123 (PORT=0 picks a free port). */
  listen(): Promise<string>;
  url(): string;
  /** Stops accepting, lets in-flight requests finish, then drops what is left after a short grace period. */
  close(): Promise<void>;
}

const CLOSE_GRACE_MS = 2000;

/**
 * The platform simulator on plain node:http: it is the upstream of benchmarks, so a GET without a body is
 * answered synchronously with no framework in between.
 */
export function createSandboxServer(config: SandboxConfig, deps: SandboxDependencies = {}): SandboxServer {
  const now = deps.now ?? Date.now;
  const logger = deps.logger;
  // Platforms register in platform-modules.registry.ts: each owns its path prefixes, its config section, its
  // fault hooks and, in test/dev, its /_sandbox/<prefix> routes.
  const modules: PlatformModule[] = PLATFORM_MODULES.map((definition) => ({
    name: definition.name,
    ...definition.create(config, { now, logger }),
  }));
  const fallback = moduleNamed(modules, FALLBACK_MODULE);
  const controlOn = config.NODE_ENV === 'test' || config.NODE_ENV === 'development';
  const requestLog = controlOn ? new RequestLog(config.SANDBOX_REQUEST_LOG_LIMIT, now) : undefined;
  const moduleControls = modules.flatMap((platform) => (platform.control ? [platform.control] : []));
  const faultTable = controlOn ? new FaultTable(now) : undefined;
  const faults = faultTable ? new FaultInjector(faultTable, modules, fallback) : undefined;
  const moduleNames = modules.map((platform) => platform.name) as [string, ...string[]];
  const control = requestLog
    ? new ControlApi(requestLog, moduleControls, faultTable && new FaultRoutes(faultTable, moduleNames))
    : undefined;
  const latency = config.SANDBOX_LATENCY_MS;

  function answerModule(res: ServerResponse, reply: ModuleReply): void {
    if (reply.kind === 'redirect') sendRedirect(res, reply.location);
    else if (reply.kind === 'html') sendHtml(res, reply.status, reply.html);
    else if ((reply.delayMs ?? latency) > 0) {
      setTimeout(() => sendJson(res, reply.status, reply.payload, reply.headers), reply.delayMs ?? latency);
    } else sendJson(res, reply.status, reply.payload, reply.headers);
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string): void {
    const method = req.method ?? 'GET';
    // A path no module claims goes to the fallback module, which answers it with its own 404.
    const platform = findModule(modules, path) ?? fallback;
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
    modules,
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

function moduleNamed(modules: readonly PlatformModule[], name: PlatformModuleName): PlatformModule {
  const found = modules.find((platform) => platform.name === name);
  if (!found) throw new Error(`the fallback module ${name} is not registered`);
  return found;
}
