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
export type DecisionBatchReply = { verdicts: Verdict[] } | { notOwner: true } | { expired: true };

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

export const controlCodec = {
  encode: (message: ControlMessage): Uint8Array => json.encode(message),
  decode: (data: Uint8Array): ControlMessage => json.decode(data) as ControlMessage,
};

export const controlReplyCodec = {
  encode: (reply: ControlReply): Uint8Array => json.encode(reply),
  decode: (data: Uint8Array): ControlReply => json.decode(data) as ControlReply,
};
