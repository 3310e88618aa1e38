import { DecisionClient, KeyLifecycle } from '@gateway/decisions';
import {
  createClientAddressResolver,
  OAuthGrantRepository,
  openStore,
  PortalSessionRepository,
  SignInThrottle,
} from '@gateway/store';
import { createMetrics, drainHttpServer, httpRequestDuration, metricsHandler, type Logger } from '@gateway/telemetry';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import { authorizeRoutes } from './authorize/authorize.routes';
import { errorPage, PAGE_CSS } from './authorize/pages';
import { StaticClients } from './clients/static-clients';
import type { Config } from './config';
import { OAuthKeyService } from './grant/oauth-key.service';
import { CookieJar } from './http/cookies';
import { FormSigner } from './http/signed-form';
import { authorizationServerMetadata } from './metadata/authorization-server.metadata';
import type { OAuthDeps } from './oauth.deps';
import { tokenRoutes } from './token/token.routes';

export interface OAuthServer {
  server: Server;
  /** The issuer: ISSUER, or the bound address. */
  issuer: string;
  url: string;
  stop(): Promise<void>;
}

/** Opens MongoDB and NATS, builds the app and listens. */
export async function startOAuthServer(config: Config, logger: Logger): Promise<OAuthServer> {
  const store = await openStore(config.MONGODB_URI);
  let nc: NatsConnection | undefined;
  try {
    const grants = new OAuthGrantRepository(store.connection);
    const sessions = new PortalSessionRepository(store.connection);
    const ttl = (await grants.ensureIndexes()).ttl && (await sessions.ensureIndexes()).ttl;
    nc = await connect({ servers: config.NATS_URL, name: 'oauth-server' });
    const decisions = new DecisionClient(nc, { partitions: config.PARTITIONS, subjectPrefix: config.SUBJECT_PREFIX });
    const lifecycle = new KeyLifecycle({ apiKeys: store.apiKeys, decisions });

    const server = createServer();
    await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    const issuer = config.ISSUER ?? url;
    const resolveAddress = createClientAddressResolver(config.TRUSTED_PROXY_CIDRS);
    const deps: OAuthDeps = {
      issuer: () => issuer,
      resource: config.MCP_RESOURCE_URL ?? 'http://127.0.0.1:8081/mcp',
      scopes: config.OAUTH_SCOPES,
      clients: StaticClients.fromConfig(config),
      store,
      grants,
      sessions,
      keys: new OAuthKeyService(store, lifecycle),
      signer: new FormSigner(config.OAUTH_SIGNING_KEYS, config.FORM_TTL_MS),
      // Secure is dropped only for local http runs.
      cookies: new CookieJar(!(config.NODE_ENV !== 'production' && issuer.startsWith('http:'))),
      throttle: new SignInThrottle(config.SIGN_IN_MAX_FAILURES, config.SIGN_IN_WINDOW_MS),
      clientAddress: (req) => {
        const forwarded = req.headers['x-forwarded-for'];
        return resolveAddress(req.socket.remoteAddress, typeof forwarded === 'string' ? forwarded : undefined);
      },
      ttl: {
        codeMs: config.AUTH_CODE_TTL_MS,
        accessMs: config.ACCESS_TOKEN_TTL_MS,
        refreshMs: config.REFRESH_TOKEN_TTL_MS,
        sessionMs: config.SESSION_TTL_MS,
      },
      logger,
    };
    const connection = nc;
    server.on(
      'request',
      buildOAuthApp(deps, () => !connection.isClosed()),
    );
    if (config.ISSUER === undefined) logger.warn({ issuer }, 'ISSUER is not set: the issuer is the bound address');

    // Without TTL indexes (FerretDB) expired codes, tokens and sessions are deleted here; reads refuse them anyway.
    const purge = ttl
      ? undefined
      : setInterval(() => {
          Promise.all([grants.purgeExpired(), sessions.purgeExpired()]).catch((error: unknown) =>
            logger.warn({ err: error }, 'purge of expired OAuth records failed'),
          );
        }, 10 * 60_000).unref();
    return {
      server,
      issuer,
      url,
      async stop() {
        if (purge) clearInterval(purge);
        await drainHttpServer(server);
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

/** The Express app: metadata, /authorize with its pages, /token, /revoke, health. */
export function buildOAuthApp(deps: OAuthDeps, ready: () => boolean): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    // No other site learns the address of a page here (it carries the authorization request). Not no-referrer:
    // browsers then send "Origin: null" with the forms, and the CSRF check needs the real origin.
    res.setHeader('Referrer-Policy', 'same-origin');
    next();
  });
  const registry = createMetrics('oauth-server');
  const duration = httpRequestDuration(registry);
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      duration.observe(
        { route: routeLabel(req.path), method: req.method, status_code: String(res.statusCode) },
        seconds,
      );
    });
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/metrics', metricsHandler(registry));
  app.get('/readyz', (_req, res) => {
    res.status(ready() ? 200 : 503).json({ status: ready() ? 'ok' : 'unavailable' });
  });

  const metadata = authorizationServerMetadata({
    issuer: deps.issuer(),
    scopes: deps.scopes,
    authMethods: deps.clients.authMethods(),
  });
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    app.get(path, (_req, res) => {
      // Public and cacheable; CORS-open for browser-based MCP clients.
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.json(metadata);
    });
  }
  app.get('/assets/oauth.css', (_req, res) => {
    res.type('css').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(PAGE_CSS);
  });
  app.use(authorizeRoutes(deps));
  app.use(tokenRoutes(deps));
  // Spec 5.3 rule 2: no dynamic registration (/register) and nothing else.
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      if (req.path.startsWith('/authorize')) res.status(400).type('html').send(errorPage('The request is malformed.'));
      else res.status(400).json({ error: 'invalid_request', error_description: 'the body is malformed' });
      return;
    }
    deps.logger.error({ err: error, path: req.path }, 'oauth request failed');
    if (req.path.startsWith('/authorize')) {
      res.status(500).type('html').send(errorPage('Something went wrong on our side. Try again.'));
    } else {
      res.status(500).json({ error: 'server_error', error_description: 'unexpected error' });
    }
  });
  return app;
}

const ROUTES = new Set([
  '/authorize',
  '/authorize/sign-in',
  '/authorize/consent',
  '/token',
  '/revoke',
  '/healthz',
  '/readyz',
  '/metrics',
]);

/** Route templates only: paths of unknown requests never become label values. */
function routeLabel(path: string): string {
  if (ROUTES.has(path)) return path;
  return path.startsWith('/.well-known/') ? '/.well-known' : 'other';
}
