import type { Request, Response } from 'express';
import { z } from 'zod';
import { PortalError, type PortalErrorCode } from './portal-problem';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The signed-in customer of a request (set by the session middleware). */
export interface SignedIn {
  customerId: string;
  sessionId: string;
}

export interface RouteContext<B, P, Q> {
  body: B;
  params: P;
  query: Q;
  req: Request;
  res: Response;
  requestId: string;
  /** The signed-in customer; routes with `auth: 'session'` never run without one. */
  session: SignedIn | null;
}

/**
 * One JSON API operation: its zod schemas drive validation, the OpenAPI document and (outside production) a check
 * of every response against its schema, so the document cannot drift from what the code does.
 */
export interface ApiRoute<B = unknown, P = unknown, Q = unknown, R = unknown> {
  method: HttpMethod;
  /** Express path, `:name` for parameters. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** session: 401 not_signed_in without a session. none: public (sign-up, sign-in, the CSRF token). */
  auth: 'session' | 'none';
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  status: number;
  /** Absent for answers without a body (204) or redirects (302). */
  response?: z.ZodType<R>;
  /** Error codes the operation documents besides invalid_request, not_signed_in and csrf_failed. */
  errors?: PortalErrorCode[];
  /** Returns the body; routes that answer themselves (redirects) return undefined after writing `res`. */
  handler(ctx: RouteContext<B, P, Q>): Promise<R | undefined>;
}

/** Keeps each route's generic types while collecting routes of different types in one list. */
export function defineRoute<B = undefined, P = undefined, Q = undefined, R = undefined>(
  route: ApiRoute<B, P, Q, R>,
): ApiRoute {
  return route as unknown as ApiRoute;
}

/** Validation issues as form-friendly `{ path, message }` entries (the web app shows them next to the field). */
export function invalidRequest(error: z.ZodError, where: 'body' | 'params' | 'query'): PortalError {
  const errors = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || where,
    message: issue.message,
  }));
  return new PortalError('invalid_request', `${where} fails validation`, { errors });
}

export function signedIn(ctx: { session: SignedIn | null }): SignedIn {
  if (ctx.session === null) throw new PortalError('not_signed_in');
  return ctx.session;
}
