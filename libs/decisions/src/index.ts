export {
  DEFAULT_PARTITIONS,
  DEFAULT_SUBJECT_PREFIX,
  keyChangedSubject,
  nodeDecideSubject,
  partitionOf,
  partitionSubjects,
} from './partitions';
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
export {
  batchCodec,
  batchReplyCodec,
  batchReplyText,
  controlCodec,
  controlReplyCodec,
  nodeBatchCodec,
  nodeBatchReplyCodec,
} from './codec';
export type {
  BatchReplyText,
  DecisionBatch,
  DecisionBatchReply,
  OwnerReply,
  NodeBatch,
  NodeBatchReply,
  ControlMessage,
  ControlReply,
} from './codec';
export { DecisionClient } from './decision.client';
export { RefusalHold } from './refusal-hold';
export { failFastWhileDisconnected, NATS_UNAVAILABLE } from './nats-availability';
export type { DecisionClientOptions } from './decision.client';
export { KeyLifecycle } from './key-lifecycle';
export type { KeyLifecycleDeps } from './key-lifecycle';
export { rateLimitHeaders } from './rate-limit-headers';
export { connectNats } from './nats.connection';
