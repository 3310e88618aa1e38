import { newOAuthFamilyId, verifyAgainstDummy, verifyPassword, type CustomerRecord } from '@gateway/store';
import express, { type Request, type Response, type Router } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { StaticClient } from '../clients/static-clients';
import { OAuthKeyService } from '../grant/oauth-key.service';
import type { OAuthDeps } from '../oauth.deps';
import {
  clientRedirect,
  parseAuthorizationRequest,
  toAuthorizationQuery,
  type AuthorizationRequest,
} from './authorization-request';
import { consentPage, errorPage, signInPage } from './pages';

/** /authorize: sign in with the portal account, consent once, get a code (spec 5.3 rule 1). */
export function authorizeRoutes(deps: OAuthDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const policy = { clients: deps.clients, resource: deps.resource, scopes: deps.scopes };

  const csrfToken = (req: Request, res: Response): string => {
    const existing = deps.cookies.read(req, deps.cookies.csrf);
    if (existing !== undefined && existing.length === 43) return existing;
    const token = randomBytes(32).toString('base64url');
    deps.cookies.set(res, deps.cookies.csrf, token);
    return token;
  };

  const signedIn = async (req: Request): Promise<CustomerRecord | null> => {
    const session = await deps.sessions.find(deps.cookies.read(req, deps.cookies.session));
    return session === null ? null : deps.store.customers.findById(session.customer_id);
  };

  /** The request a form carries, re-checked against the clients as they are configured now. */
  const formRequest = (body: Record<string, unknown>) => {
    const payload = deps.signer.verify(body.request);
    if (payload === null) return null;
    const parsed = parseAuthorizationRequest(
      Object.fromEntries(toAuthorizationQuery(payload.r as AuthorizationRequest)),
      policy,
    );
    return parsed.kind === 'ok' ? parsed : null;
  };

  const showSignIn = (
    res: Response,
    status: number,
    client: StaticClient,
    request: AuthorizationRequest,
    csrf: string,
    extra: { email?: string; error?: string } = {},
  ) => {
    sendPage(
      res,
      status,
      signInPage({ clientName: client.name, request: deps.signer.sign({ r: request }), csrf, ...extra }),
    );
  };

  const showConsent = async (
    res: Response,
    client: StaticClient,
    request: AuthorizationRequest,
    customer: CustomerRecord,
    csrf: string,
  ) => {
    const existing = await deps.keys.existing(customer.customer_id, client);
    const scope = existing
      ? {
          providers: existing.providers,
          connections: await connectionsOf(deps, existing.account_ids),
        }
      : await deps.keys.scopeOf(customer);
    sendPage(
      res,
      200,
      consentPage({
        clientName: client.name,
        keyName: OAuthKeyService.keyName(client),
        email: customer.email,
        providers: scope.providers,
        connections: scope.connections,
        request: deps.signer.sign({ r: request }),
        csrf,
      }),
      // The consent answer redirects to the assistant: browsers apply form-action to that redirect too.
      [new URL(request.redirect_uri).origin],
    );
  };

  router.get('/authorize', async (req, res) => {
    const parsed = parseAuthorizationRequest(req.query as Record<string, unknown>, policy);
    if (parsed.kind === 'fatal') {
      sendPage(res, 400, errorPage(parsed.description));
      return;
    }
    if (parsed.kind === 'redirect') {
      res.redirect(
        302,
        clientRedirect(
          parsed.redirectUri,
          { error: parsed.error, error_description: parsed.description, state: parsed.state },
          deps.issuer(),
        ),
      );
      return;
    }
    const csrf = csrfToken(req, res);
    const customer = await signedIn(req);
    if (customer === null) showSignIn(res, 200, parsed.client, parsed.request, csrf);
    else await showConsent(res, parsed.client, parsed.request, customer, csrf);
  });

  /**
   * The request a sign-in or consent form carries, or null once the answer is sent: 403 for a form that did not
   * come from our page (CSRF), 400 for one whose signed request expired or was altered.
   */
  const acceptForm = (
    req: Request,
    res: Response,
    what: string,
  ): { body: Record<string, unknown>; parsed: NonNullable<ReturnType<typeof formRequest>> } | null => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfOk(req, body, deps)) {
      sendPage(res, 403, errorPage('The form was not sent from this page. Start again from your assistant.'));
      return null;
    }
    const parsed = formRequest(body);
    if (parsed === null) {
      sendPage(res, 400, errorPage(`This ${what} form has expired. Start again from your assistant.`));
      return null;
    }
    return { body, parsed };
  };

  router.post('/authorize/sign-in', form, async (req, res) => {
    const accepted = acceptForm(req, res, 'sign-in');
    if (accepted === null) return;
    const { body, parsed } = accepted;
    const csrf = csrfToken(req, res);
    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase().slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 256) : '';
    const address = deps.clientAddress(req);
    const wait = deps.throttle.retryAfterSeconds(email, address);
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      showSignIn(res, 429, parsed.client, parsed.request, csrf, {
        email,
        error: `Too many failed attempts. Try again in ${wait} seconds.`,
      });
      return;
    }
    const customer = email === '' ? null : await deps.store.customers.findByEmail(email);
    const hash = customer ? await deps.store.customers.getPasswordHash(customer.customer_id) : null;
    const ok = customer && hash ? await verifyPassword(password, hash) : await verifyAgainstDummy(password);
    if (!ok || customer === null) {
      deps.throttle.recordFailure(email, address);
      showSignIn(res, 401, parsed.client, parsed.request, csrf, {
        email,
        error: 'The email or password is wrong.',
      });
      return;
    }
    deps.throttle.recordSuccess(email, address);
    const { sessionId } = await deps.sessions.create(customer.customer_id, deps.ttl.sessionMs);
    deps.cookies.set(res, deps.cookies.session, sessionId, deps.ttl.sessionMs);
    res.redirect(303, `/authorize?${toAuthorizationQuery(parsed.request).toString()}`);
  });

  // "Not you?": ends this sign-in and shows the sign-in page for the same request.
  router.post('/authorize/sign-out', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = csrfOk(req, body, deps) ? formRequest(body) : null;
    if (parsed === null) {
      sendPage(res, 403, errorPage('The form was not sent from this page. Start again from your assistant.'));
      return;
    }
    await deps.sessions.delete(deps.cookies.read(req, deps.cookies.session));
    deps.cookies.set(res, deps.cookies.session, '', 0);
    res.redirect(303, `/authorize?${toAuthorizationQuery(parsed.request).toString()}`);
  });

  router.post('/authorize/consent', form, async (req, res) => {
    const accepted = acceptForm(req, res, 'consent');
    if (accepted === null) return;
    const { body, parsed } = accepted;
    const { client, request } = parsed;
    const customer = await signedIn(req);
    if (customer === null) {
      showSignIn(res, 401, client, request, csrfToken(req, res), { error: 'Your sign-in has expired.' });
      return;
    }
    if (body.decision !== 'allow') {
      res.redirect(
        303,
        clientRedirect(
          request.redirect_uri,
          { error: 'access_denied', error_description: 'the user denied access', state: request.state },
          deps.issuer(),
        ),
      );
      return;
    }
    const key = await deps.keys.ensureKey(customer, client);
    const code = await deps.grants.createCode(
      {
        client_id: client.clientId,
        customer_id: customer.customer_id,
        key_hash: key.hash,
        resource: request.resource,
        scopes: request.scopes,
        family_id: newOAuthFamilyId(),
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge,
      },
      deps.ttl.codeMs,
    );
    res.redirect(303, clientRedirect(request.redirect_uri, { code, state: request.state }, deps.issuer()));
  });

  return router;
}

/** The connections an existing key was given, as the consent page lists them. */
async function connectionsOf(deps: OAuthDeps, accountIds: readonly string[]) {
  const found = await Promise.all(accountIds.map((id) => deps.store.connections.findByAccountId(id)));
  return found
    .filter((connection) => connection !== null)
    .map((connection) => ({ provider: connection.provider, account_id: connection.account_id }));
}

/**
 * Double-submit token (hidden field equal to the HttpOnly cookie) plus the browser's own signals: an Origin, when
 * sent, must be this server's, and Sec-Fetch-Site must not say cross-site.
 */
function csrfOk(req: Request, body: Record<string, unknown>, deps: OAuthDeps): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(deps.issuer()).origin) return false;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const cookie = deps.cookies.read(req, deps.cookies.csrf);
  const field = body.csrf_token;
  if (cookie === undefined || typeof field !== 'string') return false;
  const left = Buffer.from(cookie);
  const right = Buffer.from(field);
  return left.length === right.length && timingSafeEqual(left, right);
}

function sendPage(res: Response, status: number, page: string, formTargets: readonly string[] = []): void {
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}; ` +
      "frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(page);
}
