import type { GatewayErrorCode } from '@gateway/errors';

/**
 * What a request asks of the key's actor:
 * - forward: a platform call (REST or MCP call_endpoint): every check, counts 1 toward the quota when admitted;
 * - describe: GET /v1/me: key, address and rate only; never counts toward the quota (spec 4.1);
 * - free: an MCP tool that costs nothing (spec 4.3): key, address and rate only;
 * - suggest: an AI suggestion of find_endpoint: consumes the monthly suggestion allowance when one is left.
 */
export type Intent = 'forward' | 'describe' | 'free' | 'suggest';

export interface DecisionRequest {
  /** Lowercase hex SHA-256 of the presented key. */
  keyHash: string;
  /** Client address as the edge established it (socket, or trusted proxy). */
  ip: string;
  intent: Intent;
  /** forward: the provider id of the path. */
  provider?: string;
  /** forward: X-Account-Id as sent; absent when the header is missing. */
  accountId?: string;
  /** forward: the edge's static allowlist verdict on the method and path. */
  pathAllowed?: boolean;
  /**
   * false when the same HTTP request already paid its rate unit with an earlier decision (an MCP request is
   * authenticated once, then its tool asks again to forward or to suggest). Default true.
   */
  countRate?: boolean;
  /**
   * W3C traceparent of the request's span when its trace is sampled, so the actor's decision joins the request's
   * trace; absent otherwise (nothing would be recorded under it).
   */
  traceparent?: string;
}

/** Rate state for RateLimit headers (draft-ietf-httpapi-ratelimit-headers-11). */
export interface RateState {
  /** Bucket capacity: the most requests admitted at once (the plan's burst). */
  limit: number;
  /** Seconds in which an empty bucket refills completely (burst / rps, rounded up). */
  windowSeconds: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

export interface QuotaState {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until the calendar month (UTC) ends. */
  resetSeconds: number;
  overageMode: OverageMode;
}

/**
 * block: never admit beyond monthly_quota (spec 2.3).
 * metered: admit beyond the quota and count the overage for billing; quota_used may exceed monthly_quota.
 */
export type OverageMode = 'block' | 'metered';

/** GET /v1/me, exactly the fields of spec 2.3. */
export interface KeyDescription {
  key_id: string;
  customer_id: string;
  plan: string;
  providers: string[];
  accounts: { provider: string; account_id: string }[];
  connections: number;
  rate_limit_rps: number;
  monthly_quota: number;
  quota_used: number;
  overage_mode: OverageMode;
}

export interface SuggestionState {
  allowance: number;
  used: number;
  /** suggest: whether this request may use the AI (false: fall back to keyword matching). */
  granted: boolean;
}

export interface Admit {
  ok: true;
  keyId: string;
  customerId: string;
  /** forward: the connection to call. */
  accountId?: string;
  rate: RateState;
  quota: QuotaState;
  /** describe: the key description of spec 2.3. */
  description?: KeyDescription;
  /** suggest and free: the suggestion allowance. */
  suggestions?: SuggestionState;
  /** The plan's MCP tier, so mcp-server can choose its tool set per request. */
  mcpTier: string;
}

export interface Reject {
  ok: false;
  code: GatewayErrorCode;
  detail?: string;
  keyId?: string;
  /** Seconds after which the same request may succeed (rate_limited, quota_exceeded). */
  retryAfterSeconds?: number;
  rate?: RateState;
  quota?: QuotaState;
  /**
   * Milliseconds during which the owner will refuse the same request again (same key, and for rate and quota the
   * same address, provider and account): a caller may refuse it itself that long without asking (RefusalHold);
   * a key change ends it earlier (the owner announces it on keyChangedSubject).
   */
  holdMs?: number;
}

export type Verdict = Admit | Reject;
