import type { Admit, DecisionClient, Verdict } from '@gateway/decisions';
import type { ProviderCaller } from '@gateway/proto';
import type { Logger } from '@gateway/telemetry';
import type { EndpointIndex } from '../suggest/endpoint.index';
import type { SuggestionModel } from '../suggest/llm.client';

/** What the tools of every request share: the service's dependencies, built once. */
export interface ToolDeps {
  decisions: Pick<DecisionClient, 'decide' | 'refund' | 'refundSuggestion'>;
  caller: ProviderCaller;
  index: EndpointIndex;
  /** find_endpoint's AI; absent when no LLM is configured. */
  model?: SuggestionModel;
  maxResultChars: number;
  /** Most bytes of a platform answer call_endpoint reads (MAX_ANSWER_BYTES); unset: the whole answer. */
  maxAnswerBytes?: number;
  upstreamTimeoutMs: number;
  logger: Logger;
  now: () => Date;
  /** Sees each finished tool call (metrics). */
  onToolCall?: (tool: string, outcome: string) => void;
}

/**
 * One authenticated HTTP request. Every decision a tool asks for is made for this key, from this address,
 * without another rate unit: the request paid its unit with `verdict`, the free decision that admitted it.
 */
export interface RequestContext {
  requestId: string;
  keyHash: string;
  ip: string;
  verdict: Admit;
  /** W3C trace context of the request, passed on to the actor and provider-proxy. */
  traceContext: Record<string, string>;
  /** A call_endpoint's forward decision, asked in the same batch as `verdict` (see mcp.handler). */
  prefetchedForward?: PrefetchedDecision;
}

export interface PrefetchedDecision {
  /** The call it was asked for (ForwardPlan.fingerprint). */
  fingerprint: string;
  verdict: Promise<Verdict>;
  /** Set when the tool used it; an admitted verdict nobody used gives its quota unit back. */
  taken: boolean;
}
