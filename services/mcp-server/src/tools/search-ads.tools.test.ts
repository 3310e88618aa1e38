import type { Admit, DecisionRequest } from '@gateway/decisions';
import type { FetchRequest, ProviderCaller, ResponseSink } from '@gateway/proto';
import { createLogger } from '@gateway/telemetry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EndpointIndex } from '../suggest/endpoint.index';
import { platformErrorCode } from './call-endpoint.tool';
import { createMcpServer } from './mcp-server.factory';
import type { RequestContext, ToolDeps } from './tool-context';

const admit: Admit = {
  ok: true,
  keyId: 'dg_live_abcdefgh',
  customerId: 'cus_1',
  accountId: 'acct_00000000000000000007',
  rate: { limit: 10, windowSeconds: 2, remaining: 9, resetSeconds: 0 },
  quota: { limit: 100, used: 8, remaining: 92, resetSeconds: 3600, overageMode: 'block' },
  mcpTier: 'basic',
  description: {
    key_id: 'dg_live_abcdefgh',
    customer_id: 'cus_1',
    plan: 'business',
    providers: ['video-ads', 'search-ads'],
    accounts: [{ provider: 'search-ads', account_id: 'acct_00000000000000000007' }],
    connections: 1,
    rate_limit_rps: 10,
    monthly_quota: 100,
  } as Admit['description'],
};

type Answer = { status?: number; body?: string };

class FakeCaller implements ProviderCaller {
  readonly requests: FetchRequest[] = [];
  constructor(private readonly answer: Answer) {}
  call(request: FetchRequest, sink: ResponseSink) {
    this.requests.push(request);
    setImmediate(() => {
      sink.onHead({ status: this.answer.status ?? 200, contentType: 'application/json', headers: {} });
      sink.onChunk(Buffer.from(this.answer.body ?? ''));
      sink.onEnd();
    });
    return { cancel: () => undefined, credit: () => undefined };
  }
  close() {}
}

async function run(tool: string, args: Record<string, unknown>, answer: Answer = {}) {
  const caller = new FakeCaller(answer);
  const decided: DecisionRequest[] = [];
  const deps: ToolDeps = {
    decisions: {
      decide: (request) => {
        decided.push(request);
        return Promise.resolve(admit);
      },
      refund: () => Promise.resolve(),
      refundSuggestion: () => Promise.resolve(),
    },
    caller,
    index: new EndpointIndex(),
    maxResultChars: 100_000,
    upstreamTimeoutMs: 5_000,
    logger: createLogger('test', 'silent'),
    now: () => new Date('2026-11-22T10:00:00Z'),
  };
  const ctx: RequestContext = {
    requestId: 'req_7',
    keyHash: 'e'.repeat(64),
    ip: '10.0.0.1',
    verdict: { ...admit, accountId: undefined },
    traceContext: {},
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer('basic', deps, ctx).connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  await client.close();
  return { result, caller, decided, text: (result.content[0] as { text: string }).text };
}

const ADGROUPS = '/api/v5/campaigns/{campaignId}/adgroups';
const SUNSET = {
  api_version: 'v5',
  deprecated_since: '2026-11-25',
  sunset: '2027-01-26',
  notice: expect.stringMatching(/retires Campaign Management API v5 on 2027-01-26/),
};

describe('describe_endpoint on search-ads', () => {
  it('tells the v5 sunset in a lifecycle field and in a sentence of the text', async () => {
    const { result, text } = await run('describe_endpoint', {
      provider: 'search-ads',
      path: '/api/v5/reports/campaigns',
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ method: 'POST', lifecycle: SUNSET });
    expect(text).toMatch(
      /^Deprecation: search-ads API v5 is retired by the platform on 2027-01-26 \(deprecated since 2026-11-25\)/,
    );
    expect(result.structuredContent).toMatchObject({
      example_call: { arguments: { path: '/api/v5/reports/campaigns', body: { startTime: '2026-11-16' } } },
    });
  });

  it('describes a path template as listed or by a concrete path, with its ids to put in the path', async () => {
    for (const path of [ADGROUPS, '/api/v5/campaigns/5123456789/adgroups']) {
      const { result, text } = await run('describe_endpoint', { provider: 'search-ads', path });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        path: ADGROUPS,
        path_ids: [{ name: 'campaignId', format: expect.stringMatching(/digits/) }],
        paging: { style: 'offset', page_param: 'offset', page_size_param: 'limit' },
        example_call: { arguments: { path: '/api/v5/campaigns/1234567890/adgroups', params: { limit: 100 } } },
      });
      expect(text).toMatch(/Path template: \{campaignId\} is an id \(digits\) to put in the path itself/);
    }
    const keywords = await run('describe_endpoint', {
      provider: 'search-ads',
      path: '/api/v5/campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords',
    });
    expect(keywords.result.structuredContent).toMatchObject({
      example_call: { arguments: { path: '/api/v5/campaigns/1234567890/adgroups/1234569001/targetingkeywords' } },
    });
  });

  it('carries no lifecycle for providers without a retiring version', async () => {
    const { result, text } = await run('describe_endpoint', { provider: 'video-ads', path: '/v1.3/campaign/get/' });
    expect(result.structuredContent).not.toHaveProperty('lifecycle');
    expect(result.structuredContent).not.toHaveProperty('path_ids');
    expect(text.startsWith('{')).toBe(true);
  });
});

describe('list_endpoints with search-ads', () => {
  it('shows the templates, their path ids and the v5 sunset per endpoint and per provider', async () => {
    const { result, text } = await run('list_endpoints', {});
    const listed = result.structuredContent as {
      providers: { provider: string; deprecations?: unknown[] }[];
      endpoints: { provider: string; path: string; path_ids?: string[]; lifecycle?: unknown }[];
    };
    expect(listed.providers.find((p) => p.provider === 'search-ads')?.deprecations).toEqual([
      { ...SUNSET, migration_doc: 'docs/providers.md#search-ads' },
    ]);
    expect(listed.providers.find((p) => p.provider === 'video-ads')).not.toHaveProperty('deprecations');
    const adGroups = listed.endpoints.find((e) => e.path === ADGROUPS);
    expect(adGroups).toMatchObject({
      provider: 'search-ads',
      path_ids: ['campaignId'],
      paged: true,
      lifecycle: SUNSET,
    });
    expect(listed.endpoints.find((e) => e.path === '/v1.3/campaign/get/')).not.toHaveProperty('lifecycle');
    expect(text).toMatch(/^Deprecation: search-ads API v5 is retired by the platform on 2027-01-26/);
  });
});

describe('call_endpoint on search-ads', () => {
  it('sends a concrete templated path with limit and offset', async () => {
    const { result, caller, decided } = await run(
      'call_endpoint',
      { provider: 'search-ads', path: '/api/v5/campaigns/5123456789/adgroups', params: { limit: 2, offset: 2 } },
      { body: '{"data":[],"pagination":{"totalResults":4,"startIndex":2,"itemsPerPage":2},"error":null}' },
    );
    expect(result.isError).toBeFalsy();
    expect(decided.find((d) => d.intent === 'forward')).toMatchObject({ provider: 'search-ads', pathAllowed: true });
    expect(caller.requests[0]).toMatchObject({
      path: '/api/v5/campaigns/5123456789/adgroups',
      query: 'limit=2&offset=2',
      method: 'GET',
    });
  });

  it('refuses the template itself as a path, naming the ids to put in it, before anything is decided', async () => {
    const { result, text, caller, decided } = await run('call_endpoint', { provider: 'search-ads', path: ADGROUPS });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^invalid_params: .*\{campaignId\}.*e\.g\. \/api\/v5\/campaigns\/1234567890\/adgroups/);
    expect(caller.requests).toEqual([]);
    expect(decided.filter((d) => d.intent === 'forward')).toEqual([]);
  });

  it('sends the report as a POST with its JSON body, and refuses a body the catalogue refuses', async () => {
    const body = {
      startTime: '2026-11-09',
      endTime: '2026-11-15',
      selector: { pagination: { offset: 0, limit: 1000 } },
      returnRowTotals: true,
    };
    const ok = await run(
      'call_endpoint',
      { provider: 'search-ads', path: '/api/v5/reports/campaigns', body },
      { body: '{"data":{"reportingDataResponse":{"row":[]}},"pagination":null,"error":null}' },
    );
    expect(ok.result.isError).toBeFalsy();
    expect(ok.caller.requests[0]).toMatchObject({ method: 'POST', path: '/api/v5/reports/campaigns' });
    expect(JSON.parse(ok.caller.requests[0]!.body!.toString())).toEqual(body);
    const bad = await run('call_endpoint', {
      provider: 'search-ads',
      path: '/api/v5/reports/campaigns',
      body: { ...body, startTime: '09-11-2026' },
    });
    expect(bad.text).toMatch(/^invalid_params: /);
    expect(bad.caller.requests).toEqual([]);
  });

  it('reads the messageCode of error.errors[] and answers HTTP 4xx as platform_error, counted, envelope fenced', async () => {
    expect(platformErrorCode('search-ads', { data: [], pagination: null, error: null })).toBeUndefined();
    expect(
      platformErrorCode('search-ads', {
        data: null,
        error: { errors: [{ messageCode: 'INVALID_ATTRIBUTE_VALUE', message: 'x', field: 'limit' }] },
      }),
    ).toBe('INVALID_ATTRIBUTE_VALUE');
    const envelope =
      '{"data":null,"pagination":null,"error":{"errors":[{"messageCode":"NOT_FOUND","message":"campaign not found","field":""}]}}';
    const { result, text } = await run(
      'call_endpoint',
      { provider: 'search-ads', path: '/api/v5/campaigns/9999999999' },
      { status: 404, body: envelope },
    );
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^platform_error: The platform refused the request \(HTTP 404, code NOT_FOUND\)/);
    expect(text).toContain('"platform_code":"NOT_FOUND"');
    expect(text).toContain('"counted":true');
    expect(text).toContain('"messageCode":"NOT_FOUND"');
    expect(text).toMatch(/BEGIN UNTRUSTED PLATFORM DATA/);
  });

  it('keeps the digits of ids above 2^32 (and above 2^53) in the text and the structured content', async () => {
    const raw =
      '{"data":[{"id":5123456789,"orgId":4294967297,"adamId":9007199254740993,"name":"Brand"}],' +
      '"pagination":{"totalResults":1,"startIndex":0,"itemsPerPage":20},"error":null}';
    const { result, text } = await run(
      'call_endpoint',
      { provider: 'search-ads', path: '/api/v5/campaigns', params: { limit: 20 } },
      { body: raw },
    );
    expect(result.isError).toBeFalsy();
    expect(text).toContain('"id":5123456789,"orgId":4294967297,"adamId":9007199254740993');
    const data = (result.structuredContent as { data: { data: Record<string, unknown>[] } }).data.data[0]!;
    expect([data.id, data.orgId, data.adamId]).toEqual([5123456789, 4294967297, '9007199254740993']);
  });
});

describe('find_endpoint on search-ads', () => {
  it('gives the call_endpoint arguments of the report with its body', async () => {
    const { result } = await run('find_endpoint', { question: 'taps and spend per campaign last week' });
    expect(result.structuredContent).toMatchObject({
      source: 'keyword',
      suggestion: {
        provider: 'search-ads',
        path: '/api/v5/reports/campaigns',
        next_call: {
          arguments: {
            path: '/api/v5/reports/campaigns',
            body: { startTime: '2026-11-09', endTime: '2026-11-15', returnRowTotals: true },
          },
        },
      },
    });
  });

  it('names the path ids of a template, and puts the ones the question names in next_call', async () => {
    const missing = await run('find_endpoint', { question: 'keywords of an ad group' });
    expect(missing.result.structuredContent).toMatchObject({
      suggestion: {
        path: '/api/v5/campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords',
        path_ids: ['campaignId', 'adgroupId'],
        concrete_path: null,
        missing_params: [{ name: 'campaignId' }, { name: 'adgroupId' }],
      },
    });
    // The key holds video-ads too, whose ad group list answers this wording: the provider argument picks search-ads.
    const named = await run('find_endpoint', { question: 'ad groups of campaign 5123456789', provider: 'search-ads' });
    expect(named.result.structuredContent).toMatchObject({
      suggestion: {
        path: ADGROUPS,
        concrete_path: '/api/v5/campaigns/5123456789/adgroups',
        missing_params: [],
        next_call: { arguments: { path: '/api/v5/campaigns/5123456789/adgroups', params: { limit: 100, offset: 0 } } },
      },
    });
  });
});
