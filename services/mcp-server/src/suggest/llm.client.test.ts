import { allProviders } from '@gateway/catalogue';
import { startFakeLlm, type FakeLlm } from './fake-llm.fixture';
import { OpenAiCompatibleModel, parseAnswer } from './llm.client';

const ENDPOINTS = allProviders().flatMap((provider) => provider.endpoints);
const TODAY = new Date('2026-11-22T10:00:00Z');
const GOOD = JSON.stringify({
  provider: 'video-ads',
  path: '/v1.3/report/integrated/get/',
  params: { report_type: 'BASIC', data_level: 'AUCTION_CAMPAIGN', dimensions: ['campaign_id'] },
  reason: 'spend by campaign',
});

let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm((question) => {
    if (question.includes('slow')) return { content: GOOD, delayMs: 1_500 };
    if (question.includes('broken')) return { content: 'I think you want the report endpoint!' };
    if (question.includes('fenced')) return { content: `\`\`\`json\n${GOOD}\n\`\`\`` };
    if (question.includes('error')) return { status: 500, rawBody: '{"error":{"message":"overloaded"}}' };
    if (question.includes('envelope')) return { rawBody: '{"unexpected":true}' };
    return { content: GOOD };
  });
});

afterAll(() => llm.close());

function model(timeoutMs = 500) {
  return new OpenAiCompatibleModel({ baseUrl: llm.url, apiKey: 'sk-test-secret', model: 'tiny-model', timeoutMs });
}

describe('OpenAI-compatible suggestion client', () => {
  it('posts model, messages and response_format json to /chat/completions with the bearer key', async () => {
    const outcome = await model().suggest('spend by campaign', ENDPOINTS, TODAY);
    expect(outcome).toEqual({
      ok: true,
      suggestion: {
        provider: 'video-ads',
        path: '/v1.3/report/integrated/get/',
        params: { report_type: 'BASIC', data_level: 'AUCTION_CAMPAIGN', dimensions: ['campaign_id'] },
        reason: 'spend by campaign',
      },
    });
    const request = llm.requests.at(-1)!;
    expect(request.authorization).toBe('Bearer sk-test-secret');
    expect(request.body).toMatchObject({ model: 'tiny-model', response_format: { type: 'json_object' } });
    const system = request.body.messages![0]!.content;
    expect(system).toContain('Today is 2026-11-22');
    for (const endpoint of ENDPOINTS) expect(system).toContain(endpoint.path);
    expect(request.body.messages![1]).toEqual({ role: 'user', content: 'spend by campaign' });
  });

  it('gives up after the timeout', async () => {
    const started = Date.now();
    expect(await model(200).suggest('slow question', ENDPOINTS, TODAY)).toEqual({ ok: false, failure: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_200);
  });

  it('reports malformed answers, HTTP errors and unreachable servers as failures, never exceptions', async () => {
    expect(await model().suggest('broken answer', ENDPOINTS, TODAY)).toEqual({ ok: false, failure: 'malformed' });
    expect(await model().suggest('envelope', ENDPOINTS, TODAY)).toEqual({ ok: false, failure: 'malformed' });
    expect(await model().suggest('error', ENDPOINTS, TODAY)).toEqual({ ok: false, failure: 'http_error' });
    const nowhere = new OpenAiCompatibleModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: 500 });
    expect(await nowhere.suggest('x', ENDPOINTS, TODAY)).toEqual({ ok: false, failure: 'unreachable' });
  });

  it('accepts a JSON object wrapped in a code fence', async () => {
    expect(await model().suggest('fenced', ENDPOINTS, TODAY)).toMatchObject({ ok: true });
  });

  it('refuses answers without provider or path', () => {
    const envelope = (content: string) => JSON.stringify({ choices: [{ message: { content } }] });
    expect(parseAnswer(envelope('{"path":"/v1.3/ad/get/"}'))).toEqual({ ok: false, failure: 'malformed' });
    expect(parseAnswer(envelope('[1,2]'))).toEqual({ ok: false, failure: 'malformed' });
    expect(parseAnswer('not json')).toEqual({ ok: false, failure: 'malformed' });
  });
});
