import type { Response } from 'express';

/** RFC 6749 section 5.2 error codes, plus RFC 8707's invalid_target. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target';

/** An expected refusal of /token or /revoke; answered as RFC 6749 JSON, never as problem+json. */
export class OAuthProtocolError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    /** invalid_client after Basic credentials: answered with WWW-Authenticate (RFC 6749 section 5.2). */
    readonly basicChallenge = false,
  ) {
    super(description);
    this.name = 'OAuthProtocolError';
  }
}

export function sendOAuthError(res: Response, error: OAuthProtocolError): void {
  if (error.basicChallenge) res.setHeader('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
  res.status(error.status).json({ error: error.code, error_description: error.description });
}
