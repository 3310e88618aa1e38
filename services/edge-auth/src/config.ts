import { commonEnv, durationMsFromEnv, listFromEnv, portFromEnv, booleanFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { z } from 'zod';

export const ConfigSchema = z.object({
  ...commonEnv,
  /** The REST ingress ({base_url}). */
  PORT: portFromEnv(8080),
  /**
   * Processes that serve the port together (node:cluster): 1 in Kubernetes, which scales by pods; as many as the
   * cores a process may use where one process would leave cores idle (docs/configuration.md).
   */
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** With WORKERS > 1: a worker whose event loop answers its primary nothing for this long is killed and replaced. */
  WORKER_HANG_MS: durationMsFromEnv(10_000),
  /** With WORKERS > 1: a worker that has not served this long after it was forked is killed and replaced. */
  WORKER_START_MS: durationMsFromEnv(60_000),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** host:port of provider-proxy's gRPC listener. */
  PROVIDER_PROXY_ADDRESS: z.string().min(1),
  /** stream: requests multiplexed over long-lived Exchange streams (faster); unary: one Fetch per request. */
  PROVIDER_PROXY_TRANSPORT: z.enum(['stream', 'unary']).default('stream'),
  /** Parallel Exchange streams per edge process. */
  PROVIDER_PROXY_STREAMS: z.coerce.number().int().min(1).max(64).default(2),
  /** Must equal the quota-actors' PARTITIONS and SUBJECT_PREFIX. */
  PARTITIONS: z.coerce.number().int().min(1).max(4096).default(DEFAULT_PARTITIONS),
  SUBJECT_PREFIX: z.string().default(DEFAULT_SUBJECT_PREFIX),
  /** How long a platform may take to answer before 504 platform_timeout. */
  UPSTREAM_TIMEOUT_MS: durationMsFromEnv(30_000),
  /** How long a decision may wait for a partition owner (covers an actor failover) before 503. */
  DECISION_BUDGET_MS: durationMsFromEnv(4_000),
  /**
   * Refuse again without asking what the quota-actor said it would refuse for a while (an unknown key, a key over
   * its rate until its next unit, a used-up block quota for up to a minute); a key change ends it at once.
   */
  HOLD_REFUSALS: booleanFromEnv(true),
  /**
   * Addresses (CIDRs) of reverse proxies whose X-Forwarded-For is believed. Empty: the socket address is the
   * client address, whatever the headers say (spec 5.1 rule 5 must not be bypassable by a header).
   */
  TRUSTED_PROXY_CIDRS: listFromEnv([]),
  /** Responses at least this large are gzip-compressed for clients that accept it. */
  GZIP_MIN_BYTES: z.coerce.number().int().min(0).default(1024),
});

export type Config = z.infer<typeof ConfigSchema>;
