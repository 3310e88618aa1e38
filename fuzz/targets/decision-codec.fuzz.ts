/*
 * The decision codec (libs/decisions codec.ts): positional JSON arrays on NATS between edge-auth and the actor.
 * Properties: decoding arbitrary bytes returns or throws an Error (a NatsError for bytes that are not JSON; see
 * FUZZ_CODEC_STRICT below for shapes), never hangs or throws a non-Error; encode then decode round-trips values
 * built from the bytes.
 * FUZZ_CODEC_STRICT=1 also fails on a TypeError/RangeError from a JSON value of the wrong shape: the codec trusts
 * its peers and does not validate, and this mode shows the first such input.
 */
import { isDeepStrictEqual } from 'node:util';
import { batchCodec, batchReplyCodec, controlCodec, nodeBatchCodec, nodeBatchReplyCodec } from '@gateway/decisions';
import { Input, violated } from './input';

const STRICT = process.env.FUZZ_CODEC_STRICT === '1';
const DECODERS = { batchCodec, batchReplyCodec, nodeBatchCodec, nodeBatchReplyCodec, controlCodec };

function expectedError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === 'BAD_JSON' || error.name === 'NatsError') return true;
  return !STRICT && (error instanceof TypeError || error instanceof RangeError);
}

const opt = <T>(input: Input, make: () => T): T | undefined => (input.bool() ? make() : undefined);
const clean = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  if (input.bool()) {
    const [name, codec] = input.pick(Object.entries(DECODERS));
    const bytes = Buffer.from(input.rest(), 'utf8');
    try {
      codec.decode(bytes);
    } catch (error) {
      if (!expectedError(error))
        violated(`${name}.decode threw unexpectedly`, { input: bytes.toString('utf8'), error: String(error) });
    }
    return;
  }
  const rate = {
    limit: input.byte(),
    windowSeconds: input.byte(),
    remaining: input.byte(),
    resetSeconds: input.byte(),
  };
  const quota = {
    limit: input.byte(),
    used: input.byte(),
    remaining: input.byte(),
    resetSeconds: input.byte(),
    overageMode: input.pick(['block', 'allow']),
  };
  const requests = Array.from({ length: input.byte() % 4 }, () =>
    clean({
      keyHash: input.string(16),
      ip: input.string(16),
      intent: input.pick(['rest', 'mcp', 'me']),
      provider: opt(input, () => input.string(8)),
      accountId: opt(input, () => input.string(8)),
      pathAllowed: opt(input, () => input.bool()),
      countRate: opt(input, () => input.bool()),
      traceparent: opt(input, () => input.string(16)),
    }),
  );
  const batch = clean({
    requests,
    expiresAt: opt(input, () => input.byte() * 1000),
    batchId: opt(input, () => input.string(8)),
  });
  const verdicts = Array.from({ length: input.byte() % 3 }, () =>
    input.bool()
      ? clean({
          ok: true,
          keyId: input.string(8),
          customerId: input.string(8),
          mcpTier: input.string(4),
          rate,
          quota,
          accountId: opt(input, () => input.string(8)),
        })
      : clean({
          ok: false,
          code: input.pick(['rate_limited', 'quota_exceeded', 'invalid_key']),
          keyId: opt(input, () => input.string(8)),
          detail: opt(input, () => input.string(16)),
          retryAfterSeconds: opt(input, () => input.byte()),
          rate: opt(input, () => rate),
          quota: opt(input, () => quota),
        }),
  );
  const reply = input.pick([
    { verdicts, ...(input.bool() ? { owner: input.string(8) } : {}) },
    { notOwner: true },
    { expired: true },
  ]);
  const cases: Array<[string, { encode(v: never): Uint8Array; decode(d: Uint8Array): unknown }, unknown]> = [
    ['batchCodec', batchCodec, batch],
    ['batchReplyCodec', batchReplyCodec, reply],
    ['nodeBatchCodec', nodeBatchCodec, { parts: [{ partition: input.byte(), batch }] }],
    ['nodeBatchReplyCodec', nodeBatchReplyCodec, { parts: [reply] }],
  ];
  for (const [name, codec, value] of cases) {
    const decoded = codec.decode(codec.encode(value as never));
    if (!isDeepStrictEqual(decoded, value)) violated(`${name} does not round-trip`, { value, decoded });
  }
}
