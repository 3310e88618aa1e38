import type { DecisionRequest, Intent, Verdict } from '@gateway/decisions';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sampledTraceparent } from '@gateway/telemetry';
import type { RequestContext, ToolDeps } from './tool-context';
import { toolError } from './tool-result';

/** Every tool only reads (spec 4.3 rule 2). */
export const READ_ONLY_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

/** A second decision within the request: the same key and address, and no second rate unit. */
export function decide(
  deps: ToolDeps,
  ctx: RequestContext,
  intent: Intent,
  extra: Partial<Pick<DecisionRequest, 'provider' | 'accountId' | 'pathAllowed'>> = {},
): Promise<Verdict> {
  const traceparent = sampledTraceparent(ctx.traceContext);
  return deps.decisions.decide({
    keyHash: ctx.keyHash,
    ip: ctx.ip,
    intent,
    countRate: false,
    ...extra,
    ...(traceparent ? { traceparent } : {}),
  });
}

/**
 * Runs a tool body so that nothing escapes as a protocol error: an unexpected exception becomes an
 * internal_error result (logged with the request id, never shown to the caller), and every outcome is counted.
 */
export async function guarded(
  tool: string,
  deps: ToolDeps,
  ctx: RequestContext,
  body: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  let result: CallToolResult;
  try {
    result = await body();
  } catch (error) {
    deps.logger.error({ err: error, tool, request_id: ctx.requestId }, 'tool failed');
    result = toolError('internal_error', 'Unexpected gateway error; nothing was changed. Retry shortly.');
  }
  deps.onToolCall?.(tool, outcomeOf(result));
  return result;
}

function outcomeOf(result: CallToolResult): string {
  if (!result.isError) return 'ok';
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  return /^([a-z_]+):/.exec(text)?.[1] ?? 'error';
}
