import { JSONCodec } from 'nats';
import type { DecisionRequest, Verdict } from './verdict';

/** One NATS message carries every decision of one partition gathered in one event-loop turn. */
export interface DecisionBatch {
  requests: DecisionRequest[];
  /** Wall-clock ms after which the caller no longer waits: the owner skips the batch rather than count it. */
  expiresAt?: number;
  /** The same for every attempt of one batch: an owner answers a repeated attempt from memory, never counting twice. */
  batchId?: string;
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

/** Key changes that the owner applies before it acknowledges (spec 3: revoke and rotate are immediate). */
export type ControlMessage =
  | { op: 'key_changed'; keyHash: string }
  /** A forwarded request that never reached the platform gives its quota unit back. */
  | { op: 'refund'; keyHash: string; count: number };

export type ControlReply = { ok: true } | { notOwner: true };

const json = JSONCodec();

export const batchCodec = {
  encode: (batch: DecisionBatch): Uint8Array => json.encode(batch),
  decode: (data: Uint8Array): DecisionBatch => json.decode(data) as DecisionBatch,
};

export const batchReplyCodec = {
  encode: (reply: DecisionBatchReply): Uint8Array => json.encode(reply),
  decode: (data: Uint8Array): DecisionBatchReply => json.decode(data) as DecisionBatchReply,
};

export const nodeBatchCodec = {
  encode: (batch: NodeBatch): Uint8Array => json.encode(batch),
  decode: (data: Uint8Array): NodeBatch => json.decode(data) as NodeBatch,
};

export const nodeBatchReplyCodec = {
  encode: (reply: NodeBatchReply): Uint8Array => json.encode(reply),
  decode: (data: Uint8Array): NodeBatchReply => json.decode(data) as NodeBatchReply,
};

export const controlCodec = {
  encode: (message: ControlMessage): Uint8Array => json.encode(message),
  decode: (data: Uint8Array): ControlMessage => json.decode(data) as ControlMessage,
};

export const controlReplyCodec = {
  encode: (reply: ControlReply): Uint8Array => json.encode(reply),
  decode: (data: Uint8Array): ControlReply => json.decode(data) as ControlReply,
};
