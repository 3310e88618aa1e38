import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CATALOGUE, type GatewayErrorCode } from '@gateway/errors';
import { fenceUntrusted } from '../untrusted/fence';

/**
 * Codes of failed tool calls (one error-code union per surface): the gateway's own codes, as REST
 * answers them, plus the ones only a tool has.
 */
export type ToolErrorCode =
  | GatewayErrorCode
  /** Parameters that the catalogue refuses; nothing was sent and nothing counted. */
  | 'invalid_params'
  /** A describe_endpoint for a path that is not on the allowlist. */
  | 'unknown_endpoint'
  /** The platform answered with an error in its own envelope; counted like REST (spec 7). */
  | 'platform_error';

export interface ToolErrorOptions {
  /** Facts for the assistant (accounts to choose from, problems, retry delay), shown as JSON. */
  details?: Record<string, unknown>;
  /** Text from the platform: fenced as untrusted data. */
  untrusted?: string;
}

/**
 * A failed tool call as a result with isError (MCP: tool errors are results the model can read and act on, not
 * protocol errors). The first line is "<code>: <message>"; details follow as JSON; platform text is fenced.
 * Messages never carry a key, a token or a credential.
 */
export function toolError(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}): CallToolResult {
  const parts = [`${code}: ${message}`];
  if (options.details) parts.push(JSON.stringify({ error: { code, ...options.details } }));
  if (options.untrusted !== undefined) parts.push(fenceUntrusted(options.untrusted).text);
  return { isError: true, content: [{ type: 'text', text: parts.join('\n\n') }] };
}

/** A successful result: structured content, and its JSON (or the given text) for clients that read text only. */
export function toolOk(structured: Record<string, unknown>, text?: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text: text ?? JSON.stringify(structured) }] };
}

/** The gateway's own wording of a code, for tool errors that have no better one. */
export function titleOf(code: GatewayErrorCode): string {
  return ERROR_CATALOGUE[code].title;
}

/** ISO time at which the monthly quota starts again: the first instant of the next calendar month (UTC). */
export function nextMonthStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}
