export { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX, partitionOf, partitionSubjects } from './partitions';
export type { PartitionSubjects } from './partitions';
export type {
  Intent,
  DecisionRequest,
  RateState,
  QuotaState,
  OverageMode,
  KeyDescription,
  SuggestionState,
  Admit,
  Reject,
  Verdict,
} from './verdict';
export { batchCodec, batchReplyCodec, controlCodec, controlReplyCodec } from './codec';
export type { DecisionBatch, DecisionBatchReply, ControlMessage, ControlReply } from './codec';
export { DecisionClient } from './decision.client';
export type { DecisionClientOptions } from './decision.client';
export { KeyLifecycle } from './key-lifecycle';
export type { KeyLifecycleDeps } from './key-lifecycle';
export { rateLimitHeaders } from './rate-limit-headers';
