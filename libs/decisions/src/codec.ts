import { JSONCodec } from 'nats';
import type { GatewayErrorCode } from '@gateway/errors';
import type {
  DecisionRequest,
  Intent,
  KeyDescription,
  OverageMode,
  QuotaState,
  RateState,
  SuggestionState,
  Verdict,
} from './verdict';

/** One NATS message carries every decision of one partition gathered in one event-loop turn. */
export interface DecisionBatch {
  requests: DecisionRequest[];
  /** Wall-clock ms after which the caller no longer waits: the owner skips the batch rather than count it. */
  expiresAt?: number;
  /** The same for every attempt of one batch: an owner answers a repeated attempt from memory, never counting twice. */
  batchId?: string;
  /**
   * How long after sending this attempt the caller may still send another attempt of the batch (what is left of its
   * retry budget), in ms: the owner remembers its answer that long, and no longer. A duration rather than an instant,
   * so that how long an answer is kept does not depend on the owner's clock agreeing with the caller's.
   */
  retryForMs?: number;
}

/**
 * The owner answers with one verdict per request, in order, or refuses the whole batch when it is not (or no
 * longer) the partition's owner, so the caller retries and reaches the new owner.
 */
export type DecisionBatchReply =
  /** `owner`: the node that decided, so the caller can send this partition's next batches to that node directly. */
  { verdicts: Verdict[]; owner?: string } | { notOwner: true } | { expired: true };

/**
 * The batches of several partitions that one actor node owned at the caller's last look, in one message: with P
 * partitions and few nodes, one message per node and event-loop turn instead of one per partition.
 */
export interface NodeBatch {
  parts: { partition: number; batch: DecisionBatch }[];
}

/** One reply per part, in order; a part whose partition the node no longer owns says notOwner. */
export interface NodeBatchReply {
  parts: DecisionBatchReply[];
}

/**
 * A part's reply as the JSON text the wire carries, made once by the owner: sent in the node's reply and kept for a
 * repeated attempt. A kept answer is then one flat string rather than a tree of verdict objects, which the owner's
 * collector would copy and mark for as long as the caller may repeat the batch.
 */
export type BatchReplyText = string & { readonly wireText: unique symbol };

/** What an owner answers for one batch: the reply, or its wire text (batchReplyText). */
export type OwnerReply = DecisionBatchReply | BatchReplyText;

/** Key changes that the owner applies before it acknowledges (spec 3: revoke and rotate are immediate). */
export type ControlMessage =
  | { op: 'key_changed'; keyHash: string }
  /** A forwarded request that never reached the platform gives its quota unit back. */
  | { op: 'refund'; keyHash: string; count: number }
  /** A suggestion the AI failed to give (timeout, invalid answer) goes back to the customer's allowance. */
  | { op: 'refund_suggestion'; keyHash: string };

export type ControlReply = { ok: true } | { notOwner: true };

const json = JSONCodec();
const textEncoder = new TextEncoder();

/*
 * The hot-path messages travel as positional JSON arrays instead of objects: no field names on the wire, and on each
 * side one array per request or verdict instead of a tree of objects (a third of the bytes, and fewer allocations to
 * parse). Absent optional fields are null. Control messages are rare and stay plain JSON.
 */
type Wire = unknown[];
type RateWire = [number, number, number, number];
type QuotaWire = [number, number, number, number, OverageMode];

const optional = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function encodeRequest(request: DecisionRequest): Wire {
  return [
    request.keyHash,
    request.ip,
    request.intent,
    optional(request.provider),
    optional(request.accountId),
    optional(request.pathAllowed),
    optional(request.countRate),
    optional(request.traceparent),
  ];
}

function decodeRequest(wire: Wire): DecisionRequest {
  const [keyHash, ip, intent, provider, accountId, pathAllowed, countRate, traceparent] = wire as [
    string,
    string,
    Intent,
    string | null,
    string | null,
    boolean | null,
    boolean | null,
    string | null,
  ];
  const request: DecisionRequest = { keyHash, ip, intent };
  if (provider !== null) request.provider = provider;
  if (accountId !== null) request.accountId = accountId;
  if (pathAllowed !== null) request.pathAllowed = pathAllowed;
  if (countRate !== null) request.countRate = countRate;
  if (traceparent !== null) request.traceparent = traceparent;
  return request;
}

const encodeRate = (rate: RateState): RateWire => [rate.limit, rate.windowSeconds, rate.remaining, rate.resetSeconds];
const decodeRate = ([limit, windowSeconds, remaining, resetSeconds]: RateWire): RateState => ({
  limit,
  windowSeconds,
  remaining,
  resetSeconds,
});
const encodeQuota = (quota: QuotaState): QuotaWire => [
  quota.limit,
  quota.used,
  quota.remaining,
  quota.resetSeconds,
  quota.overageMode,
];
const decodeQuota = ([limit, used, remaining, resetSeconds, overageMode]: QuotaWire): QuotaState => ({
  limit,
  used,
  remaining,
  resetSeconds,
  overageMode,
});

function encodeVerdict(verdict: Verdict): Wire {
  if (verdict.ok) {
    return [
      1,
      verdict.keyId,
      verdict.customerId,
      verdict.mcpTier,
      encodeRate(verdict.rate),
      encodeQuota(verdict.quota),
      optional(verdict.accountId),
      optional(verdict.description),
      optional(verdict.suggestions),
    ];
  }
  return [
    0,
    verdict.code,
    optional(verdict.keyId),
    optional(verdict.detail),
    optional(verdict.retryAfterSeconds),
    verdict.rate ? encodeRate(verdict.rate) : null,
    verdict.quota ? encodeQuota(verdict.quota) : null,
    optional(verdict.holdMs),
  ];
}

function decodeVerdict(wire: Wire): Verdict {
  if (wire[0] === 1) {
    const [, keyId, customerId, mcpTier, rate, quota, accountId, description, suggestions] = wire as [
      1,
      string,
      string,
      string,
      RateWire,
      QuotaWire,
      string | null,
      KeyDescription | null,
      SuggestionState | null,
    ];
    const admit: Verdict = { ok: true, keyId, customerId, mcpTier, rate: decodeRate(rate), quota: decodeQuota(quota) };
    if (accountId !== null) admit.accountId = accountId;
    if (description !== null) admit.description = description;
    if (suggestions !== null) admit.suggestions = suggestions;
    return admit;
  }
  // holdMs is last and may be missing: a verdict of an owner that does not set it holds nothing.
  const [, code, keyId, detail, retryAfterSeconds, rate, quota, holdMs] = wire as [
    0,
    GatewayErrorCode,
    string | null,
    string | null,
    number | null,
    RateWire | null,
    QuotaWire | null,
    number | null | undefined,
  ];
  const reject: Verdict = { ok: false, code };
  if (keyId !== null) reject.keyId = keyId;
  if (detail !== null) reject.detail = detail;
  if (retryAfterSeconds !== null) reject.retryAfterSeconds = retryAfterSeconds;
  if (rate !== null) reject.rate = decodeRate(rate);
  if (quota !== null) reject.quota = decodeQuota(quota);
  if (holdMs !== null && holdMs !== undefined) reject.holdMs = holdMs;
  return reject;
}

const encodeBatch = (batch: DecisionBatch): Wire => [
  batch.requests.map(encodeRequest),
  optional(batch.expiresAt),
  optional(batch.batchId),
  optional(batch.retryForMs),
];

// retryForMs is absent (undefined) in a batch of a caller older than it.
function decodeBatch([requests, expiresAt, batchId, retryForMs]: Wire): DecisionBatch {
  const batch: DecisionBatch = { requests: (requests as Wire[]).map(decodeRequest) };
  if (expiresAt !== null) batch.expiresAt = expiresAt as number;
  if (batchId !== null) batch.batchId = batchId as string;
  if (retryForMs !== null && retryForMs !== undefined) batch.retryForMs = retryForMs as number;
  return batch;
}

/** [verdicts, owner] | 'notOwner' | 'expired' */
function encodeBatchReply(reply: DecisionBatchReply): unknown {
  if ('verdicts' in reply) return [reply.verdicts.map(encodeVerdict), optional(reply.owner)];
  return 'notOwner' in reply ? 'notOwner' : 'expired';
}

function decodeBatchReply(wire: unknown): DecisionBatchReply {
  if (wire === 'notOwner') return { notOwner: true };
  if (wire === 'expired') return { expired: true };
  const [verdicts, owner] = wire as [Wire[], string | null];
  const reply: DecisionBatchReply = { verdicts: verdicts.map(decodeVerdict) };
  if (owner !== null) reply.owner = owner;
  return reply;
}

export function batchReplyText(reply: DecisionBatchReply): BatchReplyText {
  return JSON.stringify(encodeBatchReply(reply)) as BatchReplyText;
}

const textOf = (reply: OwnerReply): string => (typeof reply === 'string' ? reply : batchReplyText(reply));

export const batchCodec = {
  encode: (batch: DecisionBatch): Uint8Array => json.encode(encodeBatch(batch)),
  decode: (data: Uint8Array): DecisionBatch => decodeBatch(json.decode(data) as Wire),
};

export const batchReplyCodec = {
  encode: (reply: OwnerReply): Uint8Array => textEncoder.encode(textOf(reply)),
  decode: (data: Uint8Array): DecisionBatchReply => decodeBatchReply(json.decode(data)),
  /** The reply a wire text says (an owner's kept answer, read back). */
  fromText: (text: BatchReplyText): DecisionBatchReply => decodeBatchReply(JSON.parse(text)),
};

export const nodeBatchCodec = {
  encode: (batch: NodeBatch): Uint8Array =>
    json.encode(batch.parts.map(({ partition, batch: part }) => [partition, encodeBatch(part)])),
  decode: (data: Uint8Array): NodeBatch => ({
    parts: (json.decode(data) as [number, Wire][]).map(([partition, part]) => ({
      partition,
      batch: decodeBatch(part),
    })),
  }),
};

export const nodeBatchReplyCodec = {
  /** The parts' texts joined: a part an owner answered as text is not encoded again. */
  encode: (reply: { parts: readonly OwnerReply[] }): Uint8Array =>
    textEncoder.encode(`[${reply.parts.map(textOf).join(',')}]`),
  decode: (data: Uint8Array): NodeBatchReply => ({ parts: (json.decode(data) as unknown[]).map(decodeBatchReply) }),
};

export const controlCodec = {
  encode: (message: ControlMessage): Uint8Array => json.encode(message),
  decode: (data: Uint8Array): ControlMessage => controlMessageOf(json.decode(data)),
};

/** Control messages change state (a refund gives units back): anything but a well-formed one is refused. */
function controlMessageOf(value: unknown): ControlMessage {
  const message = value as Partial<{ op: unknown; keyHash: unknown; count: unknown }> | null;
  if (message === null || typeof message !== 'object' || typeof message.keyHash !== 'string') {
    throw new TypeError('control message: an object with a keyHash is expected');
  }
  const keyHash = message.keyHash;
  switch (message.op) {
    case 'key_changed':
    case 'refund_suggestion':
      return { op: message.op, keyHash };
    case 'refund':
      if (!Number.isSafeInteger(message.count) || (message.count as number) < 1) {
        throw new TypeError('control message: refund needs a positive integer count');
      }
      return { op: 'refund', keyHash, count: message.count as number };
    default:
      throw new TypeError(`control message: unknown op ${JSON.stringify(message.op)}`);
  }
}

export const controlReplyCodec = {
  encode: (reply: ControlReply): Uint8Array => json.encode(reply),
  decode: (data: Uint8Array): ControlReply => json.decode(data) as ControlReply,
};
