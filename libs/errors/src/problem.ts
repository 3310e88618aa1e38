import { ERROR_CATALOGUE, type GatewayErrorCode } from './codes';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 body, extended with the spec's `code` and our `request_id`. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: GatewayErrorCode;
  request_id: string;
  [extension: string]: unknown;
}

export function problemDetails(
  code: GatewayErrorCode,
  requestId: string,
  detail?: string,
  extensions: Record<string, unknown> = {},
): ProblemDetails {
  const entry = ERROR_CATALOGUE[code];
  return {
    type: `urn:gateway:error:${code}`,
    title: entry.title,
    status: entry.status,
    ...(detail === undefined ? {} : { detail }),
    ...extensions,
    code,
    request_id: requestId,
  };
}
