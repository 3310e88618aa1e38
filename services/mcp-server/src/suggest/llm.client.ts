import type { EndpointSpec } from '@gateway/catalogue';
import { z } from 'zod';

/** What the model proposes; the caller checks it against the allowlist and the catalogue before using it. */
export interface AiSuggestion {
  provider: string;
  path: string;
  params: Record<string, unknown>;
  reason?: string;
}

export type AiFailure = 'timeout' | 'http_error' | 'malformed' | 'unreachable';

export type AiOutcome = { ok: true; suggestion: AiSuggestion } | { ok: false; failure: AiFailure };

/** find_endpoint's AI: one question in, one proposal out. Never throws. */
export interface SuggestionModel {
  suggest(question: string, endpoints: readonly EndpointSpec[], today: Date): Promise<AiOutcome>;
}

export interface OpenAiCompatibleOptions {
  /** Base URL without /chat/completions, e.g. https://api.example.com/v1. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

const AnswerSchema = z.object({
  provider: z.string().min(1).max(64),
  path: z.string().min(1).max(256),
  params: z.record(z.string(), z.unknown()).default({}),
  reason: z.string().max(2_000).optional(),
});

const CompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

/** Characters of a model answer we are willing to parse. */
const MAX_ANSWER_CHARS = 64_000;

/**
 * A client of any OpenAI-compatible chat-completions API (`POST {base}/chat/completions` with model, messages
 * and response_format json_object). The model sees the catalogue and the question, and must answer with one
 * JSON object naming an endpoint and parameters. Timeouts, HTTP errors and answers that are not that object are
 * failures, never exceptions, so find_endpoint can fall back to keyword matching.
 */
export class OpenAiCompatibleModel implements SuggestionModel {
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.fetchFn = options.fetch ?? fetch;
  }

  async suggest(question: string, endpoints: readonly EndpointSpec[], today: Date): Promise<AiOutcome> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await this.fetchFn(`${this.options.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.options.model,
          temperature: 0,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: systemPrompt(endpoints, today) },
            { role: 'user', content: question },
          ],
        }),
        signal,
      });
    } catch (error) {
      return { ok: false, failure: isAbort(error) ? 'timeout' : 'unreachable' };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, failure: 'http_error' };
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      return { ok: false, failure: isAbort(error) ? 'timeout' : 'unreachable' };
    }
    return parseAnswer(text);
  }
}

/** The completion envelope, then the JSON object in its message (tolerating a ```json fence around it). */
export function parseAnswer(body: string): AiOutcome {
  const completion = CompletionSchema.safeParse(parseJson(body));
  const content = completion.success ? completion.data.choices[0]!.message.content : null;
  if (!content || content.length > MAX_ANSWER_CHARS) return { ok: false, failure: 'malformed' };
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  const answer = AnswerSchema.safeParse(parseJson(unfenced));
  if (!answer.success) return { ok: false, failure: 'malformed' };
  const { provider, path, params, reason } = answer.data;
  return { ok: true, suggestion: { provider, path, params, ...(reason ? { reason } : {}) } };
}

export function systemPrompt(endpoints: readonly EndpointSpec[], today: Date): string {
  const catalogue = endpoints.map((endpoint) => {
    const params = endpoint.params.map((param) => {
      const facts = [
        param.type,
        param.required
          ? 'required'
          : param.requiredWhen
            ? `required when ${param.requiredWhen.param}=${param.requiredWhen.equals}`
            : 'optional',
        ...(param.values ? [`one of ${param.values.join('|')}`] : []),
        ...(param.format ? [param.format] : []),
        ...(param.maximum !== undefined ? [`max ${param.maximum}`] : []),
      ];
      return `    - ${param.name} (${facts.join(', ')}): ${param.description}`;
    });
    return [
      `- provider "${endpoint.provider}", path "${endpoint.path}": ${endpoint.title}. ${endpoint.summary}`,
      ...params,
    ].join('\n');
  });
  return [
    'You choose one endpoint of a read-only advertising data API and its parameters for a question.',
    `Today is ${today.toISOString().slice(0, 10)} (UTC). "Last N days" means the N complete days before today.`,
    'Answer with exactly one JSON object: {"provider": string, "path": string, "params": object, "reason": string}.',
    'Use only the endpoints and parameter names below, exactly as written. Give array parameters as JSON arrays',
    'of strings and dates as YYYY-MM-DD. Leave out parameters the question does not give (for example',
    'advertiser_id, which comes from the advertiser listing). Report metrics use the platform names: spend,',
    'impressions, clicks, ctr, cpc, cpm, reach, conversion, cost_per_conversion, conversion_rate.',
    'The performance report allows at most 30 days with stat_time_day and 1 day with stat_time_hour; its',
    'dimensions hold the id of the data_level (advertiser_id, campaign_id, adgroup_id or ad_id) and at most one',
    'time dimension.',
    '',
    'Endpoints:',
    ...catalogue,
  ].join('\n');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}
