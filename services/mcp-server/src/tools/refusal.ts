import type { Reject } from '@gateway/decisions';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { nextMonthStart, titleOf, toolError } from './tool-result';

export interface RefusalContext {
  provider?: string;
  path?: string;
  now: Date;
}

/** A refused decision as a tool error that says what happened and what to do next (never a protocol error). */
export function refusal(reject: Reject, context: RefusalContext): CallToolResult {
  const retry = reject.retryAfterSeconds === undefined ? {} : { retry_after_seconds: reject.retryAfterSeconds };
  switch (reject.code) {
    case 'provider_not_in_plan':
      return toolError(
        reject.code,
        `${context.provider ?? 'This provider'} is not among this key's providers, so nothing was sent. ` +
          'list_endpoints shows the providers and endpoints this key can call.',
      );
    case 'path_not_allowed':
      return toolError(
        reject.code,
        `${context.path ?? 'This path'} is not on the ${context.provider ?? ''} allowlist, so nothing was sent to ` +
          'the platform. list_endpoints shows the allowed paths; write paths are never allowed (spec 4.3 rule 3).',
      );
    case 'quota_exceeded': {
      const quota = reject.quota;
      return toolError(
        reject.code,
        `The key's monthly quota is used up${quota ? ` (${quota.used} of ${quota.limit})` : ''}; it starts again ` +
          `on ${nextMonthStart(context.now)}. Nothing was sent to the platform. check_quota shows the state.`,
        { details: { ...retry, ...(quota ? { monthly_quota: quota.limit, quota_used: quota.used } : {}) } },
      );
    }
    case 'rate_limited':
      return toolError(
        reject.code,
        `This key sent more requests than its rate allows; wait ${reject.retryAfterSeconds ?? 1} s and retry. ` +
          'Nothing was sent to the platform.',
        { details: retry },
      );
    case 'key_revoked':
      return toolError(reject.code, 'The key was revoked or rotated: this connection needs a new key or sign-in.');
    case 'service_unavailable':
      return toolError(
        reject.code,
        'The gateway could not decide on this request in time; nothing was sent or counted. Retry shortly.',
        { details: { retry_after_seconds: 1 } },
      );
    default:
      return toolError(reject.code, titleOf(reject.code));
  }
}
