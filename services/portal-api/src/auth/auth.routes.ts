import { hashPassword, StoreError, verifyAgainstDummy, verifyPassword, type CustomerRecord } from '@gateway/store';
import { z } from 'zod';
import { defineRoute, signedIn, type ApiRoute } from '../http/api-route';
import { InstantSchema, PlanNameSchema } from '../http/api.schemas';
import { clearCookie, cookieNames, setCookie } from '../http/cookies';
import { PortalError } from '../http/portal-problem';
import type { PortalDeps } from '../portal.deps';
import { issueCsrfToken } from './csrf.guard';

const EmailSchema = z.email('must be an email address').max(320).toLowerCase();
// NIST SP 800-63B: length over composition rules; the upper bound keeps scrypt's input reasonable.
const PasswordSchema = z.string().min(12, 'must be at least 12 characters').max(256, 'must be at most 256 characters');

const CustomerSchema = z
  .object({
    customer_id: z.string(),
    name: z.string(),
    email: z.string(),
    plan: PlanNameSchema,
    created_at: InstantSchema,
  })
  .meta({ id: 'Customer' });

const CustomerResponse = z.object({ customer: CustomerSchema });

function toCustomer(record: CustomerRecord): z.infer<typeof CustomerSchema> {
  return {
    customer_id: record.customer_id,
    name: record.name,
    email: record.email,
    plan: record.plan,
    created_at: record.created_at.toISOString(),
  };
}

export function authRoutes(deps: PortalDeps): ApiRoute[] {
  const names = cookieNames(deps.cookies);

  const startSession = async (res: Parameters<ApiRoute['handler']>[0]['res'], customerId: string) => {
    const { sessionId } = await deps.sessions.create(customerId, deps.sessionTtlMs);
    setCookie(res, deps.cookies, names.session, sessionId, {
      httpOnly: true,
      sameSite: 'Lax',
      maxAgeMs: deps.sessionTtlMs,
    });
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/csrf',
      operationId: 'getCsrfToken',
      summary: 'The CSRF token to send as X-CSRF-Token on every state change (also set as a cookie)',
      tag: 'session',
      auth: 'none',
      status: 200,
      response: z.object({ csrf_token: z.string() }),
      handler: async ({ req, res }) => ({ csrf_token: issueCsrfToken(req, res, deps.cookies) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/sign-up',
      operationId: 'signUp',
      summary: 'Creates a customer account on the trial plan and signs it in',
      tag: 'session',
      auth: 'none',
      body: z.strictObject({
        name: z.string().trim().min(1, 'is required').max(200),
        email: EmailSchema,
        password: PasswordSchema,
      }),
      status: 201,
      response: CustomerResponse,
      errors: ['email_taken'],
      handler: async ({ body, res }) => {
        if ((await deps.store.customers.findByEmail(body.email)) !== null) throw new PortalError('email_taken');
        let customer: CustomerRecord;
        try {
          customer = await deps.store.customers.create({
            name: body.name,
            email: body.email,
            plan: 'trial',
            password_hash: await hashPassword(body.password),
          });
        } catch (error) {
          if (error instanceof StoreError && error.code === 'duplicate') throw new PortalError('email_taken');
          throw error;
        }
        await startSession(res, customer.customer_id);
        return { customer: toCustomer(customer) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/sign-in',
      operationId: 'signIn',
      summary: 'Signs in with email and password (failed attempts are throttled per email and address)',
      tag: 'session',
      auth: 'none',
      body: z.strictObject({ email: EmailSchema, password: z.string().min(1, 'is required').max(256) }),
      status: 200,
      response: CustomerResponse,
      errors: ['invalid_credentials', 'too_many_attempts'],
      handler: async ({ body, req, res }) => {
        const address = deps.clientAddress(req);
        const wait = deps.throttle.retryAfterSeconds(body.email, address);
        if (wait > 0) throw new PortalError('too_many_attempts', undefined, {}, wait);
        const customer = await deps.store.customers.findByEmail(body.email);
        const hash = customer ? await deps.store.customers.getPasswordHash(customer.customer_id) : null;
        const ok =
          customer !== null && hash !== null
            ? await verifyPassword(body.password, hash)
            : await verifyAgainstDummy(body.password);
        if (!ok || customer === null) {
          deps.throttle.recordFailure(body.email, address);
          throw new PortalError('invalid_credentials');
        }
        deps.throttle.recordSuccess(body.email, address);
        await startSession(res, customer.customer_id);
        return { customer: toCustomer(customer) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/sign-out',
      operationId: 'signOut',
      summary: 'Ends this session',
      tag: 'session',
      auth: 'session',
      status: 204,
      handler: async (ctx) => {
        await deps.sessions.delete(signedIn(ctx).sessionId);
        clearCookie(ctx.res, deps.cookies, names.session, true);
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/me',
      operationId: 'getMe',
      summary: 'The signed-in customer',
      tag: 'session',
      auth: 'session',
      status: 200,
      response: CustomerResponse,
      handler: async (ctx) => {
        const customer = await deps.store.customers.findById(signedIn(ctx).customerId);
        if (customer === null) throw new PortalError('not_signed_in');
        return { customer: toCustomer(customer) };
      },
    }),
  ];
}
