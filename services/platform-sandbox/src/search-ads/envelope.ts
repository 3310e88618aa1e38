/**
 * The Campaign Management API v5 answer: `{data, pagination, error}` with real HTTP statuses. Errors carry
 * `error.errors[]` of `{messageCode, message, field}` and `data: null`.
 */
export const SearchAdsCode = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  INVALID_ATTRIBUTE_VALUE: 'INVALID_ATTRIBUTE_VALUE',
  INVALID_JSON_REQUEST: 'INVALID_JSON_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;
export type SearchAdsCodeValue = (typeof SearchAdsCode)[keyof typeof SearchAdsCode];

export interface Pagination {
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
}

export type SearchAdsResult =
  | { kind: 'ok'; status: number; data: unknown; pagination: Pagination | null }
  | { kind: 'error'; status: number; code: SearchAdsCodeValue; message: string; field: string };

export function ok(data: unknown, pagination: Pagination | null = null, status = 200): SearchAdsResult {
  return { kind: 'ok', status, data, pagination };
}

export function apiError(status: number, code: SearchAdsCodeValue, message: string, field = ''): SearchAdsResult {
  return { kind: 'error', status, code, message, field };
}

export function invalidValue(field: string, message: string): SearchAdsResult {
  return apiError(400, SearchAdsCode.INVALID_ATTRIBUTE_VALUE, message, field);
}

export function notFound(message: string, field = ''): SearchAdsResult {
  return apiError(404, SearchAdsCode.NOT_FOUND, message, field);
}

export function envelope(result: SearchAdsResult): object {
  if (result.kind === 'error') {
    return {
      data: null,
      pagination: null,
      error: { errors: [{ messageCode: result.code, message: result.message, field: result.field }] },
    };
  }
  return { data: result.data, pagination: result.pagination, error: null };
}

export const isResult = (value: unknown): value is SearchAdsResult =>
  typeof value === 'object' && value !== null && 'kind' in value && 'status' in value;
