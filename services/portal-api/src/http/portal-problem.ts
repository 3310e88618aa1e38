import { PROBLEM_CONTENT_TYPE } from '@gateway/errors';
import type { Response } from 'express';

/**
 * The portal's own error codes and statuses (problem+json, RFC 9457, like the gateway's). They describe the
 * portal's JSON API, not the REST gateway, so they are kept apart from @gateway/errors' gateway catalogue.
 */
export const PORTAL_ERRORS = {
  invalid_request: { status: 400, title: 'The request is malformed or fails validation' },
  not_signed_in: { status: 401, title: 'Sign in first' },
  invalid_credentials: { status: 401, title: 'The email or password is wrong' },
  csrf_failed: { status: 403, title: 'The request lacks a valid CSRF token or comes from another origin' },
  connection_limit_reached: { status: 403, title: 'The plan connection allowance is used up' },
  provider_not_in_plan: { status: 403, title: 'The provider is not in the plan' },
  not_found: { status: 404, title: 'There is no such resource' },
  email_taken: { status: 409, title: 'An account with this email exists' },
  other_account: { status: 409, title: "The grant covers another platform account than this connection's" },
  grant_not_supported: { status: 422, title: 'Granting this provider from the portal is not available yet' },
  api_user_refused: {
    status: 422,
    title:
      'The platform refused the API user: the client id, team id or key id do not match, or the public key ' +
      'registered for them is not the one the portal made',
  },
  too_many_attempts: { status: 429, title: 'Too many failed sign-in attempts; try again later' },
  grant_failed: { status: 502, title: 'The platform refused the grant' },
  internal_error: { status: 500, title: 'Unexpected portal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type PortalErrorCode = keyof typeof PORTAL_ERRORS;

/** An expected failure of a handler; the error middleware turns it into problem+json. */
export class PortalError extends Error {
  constructor(
    readonly code: PortalErrorCode,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(detail ?? PORTAL_ERRORS[code].title);
    this.name = 'PortalError';
  }
}

export function sendPortalProblem(res: Response, error: PortalError, requestId: string): void {
  const entry = PORTAL_ERRORS[error.code];
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res
    .status(entry.status)
    .type(PROBLEM_CONTENT_TYPE)
    .setHeader('Cache-Control', 'no-store')
    .send(
      JSON.stringify({
        type: `urn:gateway:portal:error:${error.code}`,
        title: entry.title,
        status: entry.status,
        ...(error.detail === undefined ? {} : { detail: error.detail }),
        ...error.extensions,
        code: error.code,
        request_id: requestId,
      }),
    );
}
