import type { Admit, DecisionRequest, Verdict } from '@gateway/decisions';
import { MCP_TIERS } from '@gateway/store';
import { createLogger } from '@gateway/telemetry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { EndpointIndex } from '../suggest/endpoint.index';
import { createMcpServer } from './mcp-server.factory';
import type { RequestContext, ToolDeps } from './tool-context';
import { toolsForTier } from './tier.registry';

const BASIC_TOOLS = ['list_endpoints', 'describe_endpoint', 'find_endpoint', 'call_endpoint', 'check_quota'];

const verdict: Admit = {
  ok: true,
  keyId: 'dg_live_abcdefgh',
  customerId: 'cus_1',
  rate: { limit: 10, windowSeconds: 2, remaining: 9, resetSeconds: 0 },
  quota: { limit: 100, used: 7, remaining: 93, resetSeconds: 3600, overageMode: 'block' },
  suggestions: { allowance: 50, used: 2, granted: false },
  mcpTier: 'basic',
};

function deps(decide: (request: DecisionRequest) => Verdict = () => verdict): ToolDeps {
  return {
    decisions: {
      decide: (request) => Promise.resolve(decide(request)),
      refund: () => Promise.resolve(),
      refundSuggestion: () => Promise.resolve(),
    },
    caller: { call: () => ({ cancel: () => undefined, credit: () => undefined }), close: () => undefined },
    index: new EndpointIndex(),
    maxResultChars: 100_000,
    upstreamTimeoutMs: 1_000,
    logger: createLogger('test', 'silent'),
    now: () => new Date('2026-11-22T00:00:00Z'),
  };
}

const ctx: RequestContext = { requestId: 'req_1', keyHash: 'a'.repeat(64), ip: '127.0.0.1', verdict, traceContext: {} };

async function connect(tier: string, toolDeps = deps()): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(tier, toolDeps, ctx).connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('tools per MCP tier', () => {
  it('gives the basic tier exactly the five tools of spec 4.3', () => {
    expect(toolsForTier('basic').map((tool) => tool.name)).toEqual(BASIC_TOOLS);
  });

  it('gives higher tiers the tiers below them (moving plan adds tools, never removes them)', () => {
    for (const tier of MCP_TIERS) expect(toolsForTier(tier).map((tool) => tool.name)).toEqual(BASIC_TOOLS);
  });

  it('gives an unknown tier no tools, and tools/list still answers with an empty list', async () => {
    expect(toolsForTier('platinum')).toEqual([]);
    const client = await connect('platinum');
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });

  it('lists every tool read-only, with a title, a description, input and output schemas', async () => {
    const client = await connect('basic');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(BASIC_TOOLS);
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect(client.getInstructions()).toMatch(/list_endpoints.*find_endpoint.*call_endpoint/s);
    await client.close();
  });

  it("answers check_quota with the customer's month read now (a describe decision that counts nothing)", async () => {
    const asked: DecisionRequest[] = [];
    const client = await connect(
      'basic',
      deps((request) => {
        asked.push(request);
        return { ...verdict, quota: { ...verdict.quota, used: 9, remaining: 91 } };
      }),
    );
    const result = await client.callTool({ name: 'check_quota' });
    expect(result.structuredContent).toMatchObject({
      monthly_quota: 100,
      quota_used: 9,
      remaining: 91,
      resets_at: '2026-12-01T00:00:00.000Z',
      suggestions: { allowance: 50, used: 2, remaining: 48 },
    });
    expect(asked).toEqual([expect.objectContaining({ intent: 'describe', countRate: false })]);
    await client.close();
  });

  it('describes an endpoint with its JSON-string arrays and an example call, and refuses unknown paths', async () => {
    const client = await connect('basic');
    const described = await client.callTool({
      name: 'describe_endpoint',
      arguments: { provider: 'video-ads', path: '/v1.3/report/integrated/get/' },
    });
    const body = described.structuredContent as {
      params: { name: string; format?: string }[];
      example_call: { arguments: { params: Record<string, unknown> } };
    };
    expect(body.params.find((param) => param.name === 'dimensions')?.format).toMatch(/JSON array/);
    expect(body.example_call.arguments.params).toMatchObject({ report_type: 'BASIC', data_level: 'AUCTION_CAMPAIGN' });
    const unknown = await client.callTool({
      name: 'describe_endpoint',
      arguments: { provider: 'video-ads', path: '/v1.3/campaign/create/' },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]!.text).toMatch(/^unknown_endpoint:/);
    await client.close();
  });

  it('asks a second decision without a rate unit, and turns a refused one into a tool error', async () => {
    const asked: DecisionRequest[] = [];
    const client = await connect(
      'basic',
      deps((request) => {
        asked.push(request);
        return { ok: false, code: 'path_not_allowed' };
      }),
    );
    const result = await client.callTool({
      name: 'call_endpoint',
      arguments: { provider: 'video-ads', path: '/v1.3/campaign/update/' },
    });
    expect(asked).toEqual([
      expect.objectContaining({ intent: 'forward', provider: 'video-ads', pathAllowed: false, countRate: false }),
    ]);
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^path_not_allowed: .*nothing was sent/);
    await client.close();
  });
});
