import {
  PROVIDER_IDS,
  allProviders,
  findEndpoint,
  isProviderId,
  type ParamValue,
  type ProviderId,
} from '@gateway/catalogue';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { suggestByKeywords, type Suggestion } from '../suggest/keyword.suggester';
import type { AiSuggestion } from '../suggest/llm.client';
import { checkSuggestion } from '../suggest/suggestion.validator';
import { neutraliseText } from '../untrusted/neutralise';
import { pathIdsOf } from './endpoint-lifecycle';
import { refusal } from './refusal';
import type { RequestContext, ToolDeps } from './tool-context';
import { toolOk } from './tool-result';
import { READ_ONLY_ANNOTATIONS, decide, guarded } from './tool-support';

export const FIND_ENDPOINT = 'find_endpoint';

/** Why a suggestion came from keyword matching rather than the AI. */
export type FallbackReason =
  | 'ai_not_configured'
  | 'allowance_used_up'
  | 'ai_timeout'
  | 'ai_http_error'
  | 'ai_unreachable'
  | 'ai_malformed'
  | 'ai_invalid';

const MAX_AI_STRING = 256;

const inputSchema = z.object({
  question: z.string().min(1).max(2_000).describe('The question, in plain words.'),
  provider: z.enum(PROVIDER_IDS).optional().describe('Only consider endpoints of this provider.'),
});

const outputSchema = z.object({
  source: z.enum(['ai', 'keyword']).describe('Where the suggestion came from (spec 4.3 rule 5).'),
  fallback_reason: z
    .enum([
      'ai_not_configured',
      'allowance_used_up',
      'ai_timeout',
      'ai_http_error',
      'ai_unreachable',
      'ai_malformed',
      'ai_invalid',
    ])
    .optional(),
  suggestion: z
    .object({
      provider: z.string(),
      path: z.string(),
      title: z.string(),
      path_ids: z
        .array(z.string())
        .optional()
        .describe('Ids of a path template ({campaignId}, ...): digits, put in the path itself, not in params.'),
      concrete_path: z
        .string()
        .nullable()
        .optional()
        .describe('The template with the ids the question named; null when some are still missing.'),
      params: z.record(z.string(), z.unknown()),
      body: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('The JSON body of a POST search (its filters), already checked against the catalogue.'),
      missing_params: z
        .array(z.object({ name: z.string(), how_to_get: z.string() }))
        .describe('Required parameters the question does not give; fill them in before calling.'),
      notes: z.array(z.string()),
      next_call: z.object({
        tool: z.literal('call_endpoint'),
        arguments: z.object({
          provider: z.string(),
          path: z.string(),
          params: z.record(z.string(), z.unknown()),
          body: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    })
    .nullable(),
  alternatives: z.array(z.object({ provider: z.string(), path: z.string(), title: z.string(), score: z.number() })),
  suggestions_left: z.number().int().describe('AI suggestions left this month.'),
});

/**
 * spec 4.3: proposes an endpoint and parameters for a question in plain words. With an LLM configured and the
 * monthly suggestion allowance not used up, the AI proposes; its answer is used only when it names an allowlisted
 * endpoint with valid parameters. Otherwise (and on any AI failure) keyword matching answers. Free.
 */
export function registerFindEndpoint(server: McpServer, deps: ToolDeps, ctx: RequestContext): void {
  server.registerTool(
    FIND_ENDPOINT,
    {
      title: 'Find the endpoint for a question',
      description:
        'Use when the question is ambiguous, after list_endpoints: proposes the endpoint and parameters for a ' +
        'question in plain words (for example "spend and clicks per campaign, last 7 days" gives the performance ' +
        'report with dimensions, metrics and dates; "orders last week" gives the orders search with its JSON body; ' +
        '"affiliate sales last 30 days" gives the marketplace affiliate performance in its own date format; "taps and ' +
        'spend per campaign last week" gives the search-ads report query with its JSON body). ' +
        'Returns source "ai" or "keyword", the parameters still ' +
        'missing (usually advertiser_id, from /v1.3/oauth2/advertiser/get/) and the call_endpoint arguments (params, and body for a POST search). ' +
        'Free: does not count toward the quota; AI suggestions use a separate monthly allowance.',
      inputSchema,
      outputSchema,
      annotations: { ...READ_ONLY_ANNOTATIONS, openWorldHint: true },
    },
    ({ question, provider }) =>
      guarded(FIND_ENDPOINT, deps, ctx, async () => {
        const today = deps.now();
        // Only endpoints the key can call: a shop question must not land on an app the customer has not connected.
        const providers: ProviderId[] | undefined = provider ? [provider] : await keyProviders(deps, ctx);
        const keyword = suggestByKeywords(deps.index, question, today, providers);
        let suggestion: Suggestion | undefined = keyword.suggestion;
        let source: 'ai' | 'keyword' = 'keyword';
        let reason: string | undefined;
        let fallback: FallbackReason | undefined;
        const initial = ctx.verdict.suggestions;
        let left = Math.max(0, (initial?.allowance ?? 0) - (initial?.used ?? 0));

        if (!deps.model) {
          fallback = 'ai_not_configured';
        } else {
          const verdict = await decide(deps, ctx, 'suggest');
          if (!verdict.ok) return refusal(verdict, { now: today });
          const state = verdict.suggestions;
          left = Math.max(0, (state?.allowance ?? 0) - (state?.used ?? 0));
          if (!state?.granted) {
            fallback = 'allowance_used_up';
          } else {
            const endpoints = allProviders()
              .filter((spec) => !providers || providers.includes(spec.id))
              .flatMap((spec) => spec.endpoints);
            const outcome = await deps.model.suggest(question, endpoints, today);
            const accepted = outcome.ok ? acceptAi(outcome.suggestion, providers) : undefined;
            if (accepted) {
              suggestion = accepted;
              source = 'ai';
              reason = outcome.ok && outcome.suggestion.reason ? clip(outcome.suggestion.reason) : undefined;
            } else {
              fallback = outcome.ok ? 'ai_invalid' : `ai_${outcome.failure}`;
              deps.logger.info({ request_id: ctx.requestId, fallback }, 'AI suggestion discarded');
              // Not given, so not counted: the customer's allowance gets the suggestion back.
              try {
                await deps.decisions.refundSuggestion(ctx.keyHash);
                left += 1;
              } catch (error) {
                deps.logger.warn({ err: error, request_id: ctx.requestId }, 'suggestion give-back failed');
              }
            }
          }
        }

        const chosen = suggestion?.endpoint;
        return toolOk({
          source,
          ...(fallback ? { fallback_reason: fallback } : {}),
          suggestion: suggestion
            ? {
                provider: suggestion.endpoint.provider,
                path: suggestion.endpoint.path,
                title: suggestion.endpoint.title,
                ...(suggestion.endpoint.path.includes('{')
                  ? { path_ids: pathIdsOf(suggestion.endpoint.path), concrete_path: suggestion.path ?? null }
                  : {}),
                params: suggestion.params,
                ...(suggestion.body ? { body: suggestion.body } : {}),
                missing_params: suggestion.missing.map((param) => ({ name: param.name, how_to_get: param.howToGet })),
                notes: reason ? [...suggestion.notes, `AI: ${reason}`] : suggestion.notes,
                next_call: {
                  tool: 'call_endpoint',
                  arguments: {
                    provider: suggestion.endpoint.provider,
                    // A template's ids go in the path: the concrete path when the question named them.
                    path: suggestion.path ?? suggestion.endpoint.path,
                    params: suggestion.params,
                    ...(suggestion.body ? { body: suggestion.body } : {}),
                  },
                },
              }
            : null,
          alternatives: keyword.ranked
            .filter((entry) => entry.endpoint !== chosen)
            .slice(0, 3)
            .map((entry) => ({
              provider: entry.endpoint.provider,
              path: entry.endpoint.path,
              title: entry.endpoint.title,
              score: Math.round(entry.score * 100) / 100,
            })),
          suggestions_left: left,
        });
      }),
  );
}

/**
 * An AI proposal is used only when it names an allowlisted endpoint (of the requested provider) and every value
 * it gives passes the catalogue; required values it leaves out are reported as missing, like keyword ones.
 */
/** The providers of the key's plan, from its description (free); undefined when it cannot be read. */
async function keyProviders(deps: ToolDeps, ctx: RequestContext): Promise<ProviderId[] | undefined> {
  const described = await decide(deps, ctx, 'describe');
  if (!described.ok || !described.description) return undefined;
  const providers = described.description.providers.filter(isProviderId);
  return providers.length > 0 ? providers : undefined;
}

export function acceptAi(ai: AiSuggestion, providers?: readonly ProviderId[]): Suggestion | undefined {
  if (!isProviderId(ai.provider) || (providers && !providers.includes(ai.provider))) return undefined;
  const endpoint = findEndpoint(ai.provider, ai.path);
  if (!endpoint) return undefined;
  const params: Record<string, ParamValue> = {};
  for (const [name, value] of Object.entries(ai.params)) {
    if (!isParamValue(value)) return undefined;
    params[name] = typeof value === 'string' ? neutraliseText(value) : value;
  }
  const check = checkSuggestion(endpoint, params);
  if (check.problems.length > 0) return undefined;
  return { endpoint, params, missing: check.missing, notes: [] };
}

function isParamValue(value: unknown): value is ParamValue {
  if (typeof value === 'string') return value.length <= MAX_AI_STRING;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'boolean') return true;
  if (Array.isArray(value))
    return value.length <= 100 && value.every((item) => typeof item === 'string' && item.length <= MAX_AI_STRING);
  return value !== null && typeof value === 'object' && JSON.stringify(value).length <= 2 * MAX_AI_STRING;
}

function clip(text: string): string {
  const clean = neutraliseText(text.replace(/\s+/g, ' ').trim());
  return clean.length > 300 ? `${clean.slice(0, 297)}...` : clean;
}
