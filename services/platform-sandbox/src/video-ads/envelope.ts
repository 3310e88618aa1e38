/**
 * Platform codes the sandbox answers with (docs/providers.md, video-ads). Platform errors travel with
 * HTTP 200 and a non-zero code; only routing failures use an HTTP status, with code = status x 100.
 */
export const VideoAdsCode = {
  OK: 0,
  NO_PERMISSION: 40001,
  PARAM_ERROR: 40002,
  APP_QPS_LIMIT: 40100,
  INVALID_APP: 40101,
  TOKEN_MISSING: 40104,
  TOKEN_INVALID: 40105,
  INVALID_AUTH_CODE: 40110,
  /** Ours: HTTP 404 for a path the API does not have. */
  NOT_FOUND: 40400,
  /** Ours: HTTP 405 for a known path called with the other method. */
  METHOD_NOT_ALLOWED: 40500,
  /** Retryable server error; answered when a handler throws. */
  SERVER_ERROR: 50002,
} as const;

export const MESSAGES = {
  tokenInvalid: 'Access token is incorrect or has been revoked.',
  tokenMissing: 'Access token is null. Please set the Access-Token header.',
  qpsLimit: 'App reaches the QPS limit.',
  invalidApp: 'Authentication failed: app_id or secret is invalid.',
  invalidAuthCode: 'Auth code is invalid: it is unknown, expired or already used.',
  noPermission: (id: string) => `No permission to operate advertiser: ${id}`,
} as const;

export interface ApiResult {
  code: number;
  message: string;
  data: object;
  /** HTTP status; 200 unless routing failed. */
  status?: number;
}

export function ok(data: object): ApiResult {
  return { code: VideoAdsCode.OK, message: 'OK', data };
}

export function apiError(code: number, message: string, status?: number): ApiResult {
  return status === undefined ? { code, message, data: {} } : { code, message, data: {}, status };
}

export function paramError(message: string): ApiResult {
  return apiError(VideoAdsCode.PARAM_ERROR, message);
}

export function isError(result: ApiResult | unknown): result is ApiResult {
  return typeof result === 'object' && result !== null && 'code' in result && 'message' in result && 'data' in result;
}

/**
 * request_id as the platform makes it: UTC yyyyMMddHHmmss followed by 17 digits (31 in all).
 * The timestamp part is cached per second because it is on every answer.
 */
export class RequestIdFactory {
  private second = -1;
  private stamp = '';
  private counter = Math.floor(Math.random() * 1_000_000);

  constructor(private readonly now: () => number) {}

  next(): string {
    const ms = this.now();
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.stamp = new Date(ms).toISOString().replace(/[-T:]/g, '').slice(0, 14);
    }
    this.counter = (this.counter + 1) % 1_000_000;
    const random = Math.floor(Math.random() * 100_000_000_000);
    return `${this.stamp}${String(random).padStart(11, '0')}${String(this.counter).padStart(6, '0')}`;
  }
}

export function envelope(result: ApiResult, requestId: string): object {
  return { code: result.code, message: result.message, request_id: requestId, data: result.data };
}
