import { connectNats, DecisionClient, KeyLifecycle } from '@gateway/decisions';
import { requestIdOf } from '@gateway/errors';
import {
  CredentialCipher,
  createClientAddressResolver,
  openStore,
  PortalSessionRepository,
  SignInThrottle,
} from '@gateway/store';
import type { Logger } from '@gateway/telemetry';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from 'nats';
import type { z } from 'zod';
import { authRoutes } from './auth/auth.routes';
import { csrfGuard } from './auth/csrf.guard';
import type { PortalConfig } from './config';
import { connectionRoutes } from './connections/connections.routes';
import { keyPairPagePath } from './connections/key-pair-flow';
import { providerRoutes } from './connections/providers.routes';
import { invalidRequest, type ApiRoute, type SignedIn } from './http/api-route';
import { cookieNames, readCookie, type CookieSettings } from './http/cookies';
import { openApiDocument } from './http/openapi.document';
import { PortalError, sendPortalProblem } from './http/portal-problem';
import { keyRoutes } from './keys/keys.routes';
import type { PortalDeps } from './portal.deps';
import { usageRoutes } from './usage/usage.routes';
import { serveWebApp } from './web/web-app';

export interface Portal {
  server: Server;
  url: string;
  stop(): Promise<void>;
}

export function portalRoutes(deps: PortalDeps): ApiRoute[] {
  return [
    ...authRoutes(deps),
    ...keyRoutes(deps),
    ...providerRoutes(deps),
    ...connectionRoutes(deps),
    ...deps.keyPairFlows.flatMap((flow) => flow.routes(deps)),
    ...usageRoutes(deps),
  ];
}

/** Opens MongoDB and NATS, builds the app and listens. */
export async function startPortal(config: PortalConfig, logger: Logger): Promise<Portal> {
  const cipher = CredentialCipher.fromEnv(config.CREDENTIALS_ENCRYPTION_KEYS, config.CREDENTIALS_ACTIVE_KEY_ID);
  const store = await openStore(config.MONGODB_URI, { cipher });
  let nc: NatsConnection | undefined;
  try {
    if ((await store.plans.list()).length === 0) await store.plans.seedDefaultPlans();
    const sessions = new PortalSessionRepository(store.connection);
    const { ttl } = await sessions.ensureIndexes();
    // Each key-pair provider's pending keys (sealed with the same cipher as every credential).
    const keyPairFlows = await Promise.all(
      config.keyPairFlows.map((flow) => flow.open({ connection: store.connection, cipher })),
    );
    nc = await connectNats(config.NATS_URL, 'portal-api');
    const decisions = new DecisionClient(nc, { partitions: config.PARTITIONS, subjectPrefix: config.SUBJECT_PREFIX });
    const lifecycle = new KeyLifecycle({ apiKeys: store.apiKeys, decisions });

    let publicOrigin = config.PUBLIC_URL === undefined ? '' : new URL(config.PUBLIC_URL).origin;
    const resolveAddress = createClientAddressResolver(config.TRUSTED_PROXY_CIDRS);
    const deps: PortalDeps = {
      store,
      sessions,
      lifecycle,
      throttle: new SignInThrottle(config.SIGN_IN_MAX_FAILURES, config.SIGN_IN_WINDOW_MS),
      // Secure is dropped only for local http runs (spec of this sitting: test/development over http).
      cookies: {
        secure: !(config.NODE_ENV !== 'production' && (config.PUBLIC_URL ?? 'http:').startsWith('http:')),
      },
      publicOrigin: () => publicOrigin,
      grants: config.grants,
      keyPairFlows,
      restBaseUrl: config.REST_BASE_URL,
      mcpUrl: config.MCP_URL,
      sessionTtlMs: config.SESSION_TTL_MS,
      grantTtlMs: config.GRANT_TTL_MS,
      clientAddress: (req) => {
        const forwarded = req.headers['x-forwarded-for'];
        return resolveAddress(req.socket.remoteAddress, typeof forwarded === 'string' ? forwarded : undefined);
      },
    };
    const app = buildPortalApp(deps, { validateResponses: config.NODE_ENV !== 'production', logger, nc });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.HOST}:${port}`;
    if (publicOrigin === '') publicOrigin = url;
    const connection = nc;
    // Without a TTL index (FerretDB) expired sessions and pending keys are deleted here; they are refused either way.
    const purge =
      ttl && keyPairFlows.every((flow) => flow.ttlIndex)
        ? undefined
        : setInterval(() => {
            sessions.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, 'session purge failed'));
            for (const flow of keyPairFlows) {
              flow
                .purgeExpired()
                .catch((error: unknown) => logger.warn({ err: error }, `${flow.provider} key purge failed`));
            }
          }, 10 * 60_000).unref();
    return {
      server,
      url,
      async stop() {
        if (purge) clearInterval(purge);
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await connection.drain().catch(() => undefined);
        await store.close();
      },
    };
  } catch (error) {
    await nc?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** The Express app: /api (JSON, zod-validated), /api/openapi.json, the web app, health. */
export function buildPortalApp(
  deps: PortalDeps,
  options: { validateResponses: boolean; logger: Logger; nc?: NatsConnection },
): express.Express {
  const routes = portalRoutes(deps);
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.use((req, res, next) => {
    res.locals.requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', res.locals.requestId as string);
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const ready = options.nc === undefined || !options.nc.isClosed();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable' });
  });

  const api = express.Router();
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(express.json({ limit: '32kb' }));
  api.use(sessionResolver(deps.sessions, deps.cookies));
  api.use(csrfGuard(deps.cookies, deps.publicOrigin));
  api.get('/api/openapi.json', (_req, res) => {
    res.json(openApiDocument(routes, deps.publicOrigin()));
  });
  for (const route of routes) api[route.method](route.path, routeHandler(route, options.validateResponses));
  api.use('/api', () => {
    throw new PortalError('not_found', 'no such API operation');
  });
  app.use(api);
  serveWebApp(app, { connectPages: deps.keyPairFlows.map((flow) => keyPairPagePath(flow.provider)) });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals.requestId as string | undefined) ?? requestIdOf(undefined);
    if (error instanceof PortalError) {
      sendPortalProblem(res, error, requestId);
      return;
    }
    // express.json's parse errors carry a 4xx status; they are the caller's.
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendPortalProblem(res, new PortalError('invalid_request', 'the body is not valid JSON'), requestId);
      return;
    }
    options.logger.error({ err: error, request_id: requestId }, 'portal request failed');
    sendPortalProblem(res, new PortalError('internal_error'), requestId);
  });
  return app;
}

function routeHandler(route: ApiRoute, validateResponses: boolean) {
  return async (req: Request, res: Response) => {
    const session = (res.locals.session as SignedIn | undefined) ?? null;
    if (route.auth === 'session' && session === null) throw new PortalError('not_signed_in');
    const params = parse(route.params, req.params, 'params');
    const query = parse(route.query, req.query, 'query');
    const body = parse(route.body, req.body, 'body');
    const result = await route.handler({
      body,
      params,
      query,
      req,
      res,
      requestId: res.locals.requestId as string,
      session,
    });
    if (res.headersSent) return;
    if (route.response === undefined) {
      res.status(route.status).end();
      return;
    }
    // Outside production every answer is checked against its documented schema (OpenAPI cannot drift).
    if (validateResponses) route.response.parse(result);
    res.status(route.status).json(result);
  };
}

function parse(schema: z.ZodType | undefined, value: unknown, where: 'body' | 'params' | 'query'): unknown {
  if (schema === undefined) return undefined;
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalidRequest(result.error, where);
  return result.data;
}

function sessionResolver(sessions: PortalSessionRepository, cookies: CookieSettings) {
  const name = cookieNames(cookies).session;
  return async (req: Request, res: Response, next: NextFunction) => {
    const sessionId = readCookie(req, name);
    if (sessionId !== undefined) {
      const session = await sessions.find(sessionId);
      if (session !== null) res.locals.session = { customerId: session.customer_id, sessionId } satisfies SignedIn;
    }
    next();
  };
}

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // The platform callback URL carries a code; no page of the portal leaks its address to another site.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
}
