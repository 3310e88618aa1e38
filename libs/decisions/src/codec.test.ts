import {
  batchCodec,
  batchReplyCodec,
  batchReplyText,
  controlCodec,
  nodeBatchCodec,
  nodeBatchReplyCodec,
  type ControlMessage,
  type DecisionBatch,
} from './codec';
import type { Verdict } from './verdict';

const rate = { limit: 200, windowSeconds: 2, remaining: 199, resetSeconds: 1 };
const quota = {
  limit: 2_000_000,
  used: 41,
  remaining: 1_999_959,
  resetSeconds: 501_234,
  overageMode: 'metered' as const,
};

const verdicts: Verdict[] = [
  { ok: true, keyId: 'dg_live_Ab12Cd34', customerId: 'cus_1', mcpTier: 'basic', rate, quota, accountId: 'acct_9' },
  {
    ok: true,
    keyId: 'dg_live_Ab12Cd34',
    customerId: 'cus_1',
    mcpTier: 'basic',
    rate,
    quota,
    description: {
      key_id: 'dg_live_Ab12Cd34',
      customer_id: 'cus_1',
      plan: 'trial',
      providers: ['video-ads'],
      accounts: [{ provider: 'video-ads', account_id: 'acct_9' }],
      connections: 1,
      rate_limit_rps: 5,
      monthly_quota: 10_000,
      quota_used: 41,
      overage_mode: 'block',
    },
  },
  {
    ok: true,
    keyId: 'k',
    customerId: 'c',
    mcpTier: 'growth',
    rate,
    quota,
    suggestions: { allowance: 50, used: 3, granted: true },
  },
  { ok: false, code: 'rate_limited', keyId: 'k', retryAfterSeconds: 1, rate, quota, holdMs: 380 },
  { ok: false, code: 'invalid_api_key', holdMs: 4_000 },
  { ok: false, code: 'missing_account_id', keyId: 'k', detail: 'name one', rate, quota },
  { ok: false, code: 'invalid_api_key' },
  { ok: false, code: 'service_unavailable', detail: 'no quota owner answered in time' },
];

const batch: DecisionBatch = {
  requests: [
    { keyHash: 'a'.repeat(64), ip: '203.0.113.7', intent: 'forward', provider: 'video-ads', pathAllowed: true },
    {
      keyHash: 'b'.repeat(64),
      ip: '::1',
      intent: 'forward',
      provider: 'video-ads',
      pathAllowed: false,
      accountId: 'x',
    },
    { keyHash: 'c'.repeat(64), ip: '127.0.0.1', intent: 'describe', traceparent: '00-abc-def-01' },
    { keyHash: 'd'.repeat(64), ip: '127.0.0.1', intent: 'forward', provider: 'search-ads', countRate: false },
  ],
  expiresAt: 1_764_000_000_000,
  batchId: 'inst.1f',
  retryForMs: 3_500,
};

describe('decision codecs', () => {
  it('carry every request field through a batch and a node batch unchanged, absent fields staying absent', () => {
    expect(batchCodec.decode(batchCodec.encode(batch))).toEqual(batch);
    expect(batchCodec.decode(batchCodec.encode({ requests: [] }))).toEqual({ requests: [] });
    const node = {
      parts: [
        { partition: 3, batch },
        { partition: 11, batch: { requests: batch.requests.slice(1) } },
      ],
    };
    expect(nodeBatchCodec.decode(nodeBatchCodec.encode(node))).toEqual(node);
  });

  it('read a batch of a caller that sends no retryForMs (older than it) as having none', () => {
    const olderCaller = JSON.parse(new TextDecoder().decode(batchCodec.encode(batch))) as unknown[];
    const { retryForMs: _absent, ...rest } = batch;
    expect(batchCodec.decode(new TextEncoder().encode(JSON.stringify(olderCaller.slice(0, 3))))).toEqual(rest);
  });

  it('carry every verdict shape, and refusals of a whole batch, unchanged', () => {
    for (const reply of [{ verdicts, owner: 'node-a' }, { verdicts }, { notOwner: true }, { expired: true }] as const) {
      expect(batchReplyCodec.decode(batchReplyCodec.encode(reply))).toEqual(reply);
    }
    const parts = [{ verdicts, owner: 'node-a' }, { notOwner: true as const }, { expired: true as const }];
    expect(nodeBatchReplyCodec.decode(nodeBatchReplyCodec.encode({ parts }))).toEqual({ parts });
  });

  it('send a reply an owner encoded once as text exactly as the reply itself, alone or among other parts', () => {
    const answered = { verdicts, owner: 'node-a' };
    const text = batchReplyText(answered);
    expect(batchReplyCodec.fromText(text)).toEqual(answered);
    expect(batchReplyCodec.encode(text)).toEqual(batchReplyCodec.encode(answered));
    const parts = [{ notOwner: true as const }, answered, { expired: true as const }];
    const mixed = nodeBatchReplyCodec.encode({ parts: [parts[0]!, text, parts[2]!] });
    expect(mixed).toEqual(nodeBatchReplyCodec.encode({ parts }));
    expect(nodeBatchReplyCodec.decode(mixed)).toEqual({ parts });
    expect(nodeBatchReplyCodec.decode(nodeBatchReplyCodec.encode({ parts: [] }))).toEqual({ parts: [] });
  });

  it('put the hot-path messages on the wire without field names (well under the size of the plain JSON)', () => {
    const reply = { verdicts: Array.from({ length: 64 }, () => verdicts[0]!), owner: 'node-a' };
    expect(batchReplyCodec.encode(reply).length).toBeLessThan(JSON.stringify(reply).length * 0.6);
    expect(batchCodec.encode(batch).length).toBeLessThan(JSON.stringify(batch).length * 0.8);
  });

  it('carry control messages unchanged and refuse any other shape (a refund gives units back)', () => {
    const messages: ControlMessage[] = [
      { op: 'key_changed', keyHash: 'a'.repeat(64) },
      { op: 'refund', keyHash: 'b'.repeat(64), count: 2 },
      { op: 'refund_suggestion', keyHash: 'c'.repeat(64) },
    ];
    for (const message of messages) expect(controlCodec.decode(controlCodec.encode(message))).toEqual(message);
    const wire = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    for (const bad of [
      5,
      null,
      [],
      { op: 'refund', keyHash: 'x' },
      { op: 'refund', keyHash: 'x', count: -1 },
      { op: 'drop', keyHash: 'x' },
      { op: 'key_changed' },
    ]) {
      expect(() => controlCodec.decode(wire(bad))).toThrow(TypeError);
    }
  });
});
