import { commonEnv, durationMsFromEnv, portFromEnv } from '@gateway/config';
import { DEFAULT_PARTITIONS, DEFAULT_SUBJECT_PREFIX } from '@gateway/decisions';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

export const ConfigSchema = z.object({
  ...commonEnv,
  /** Health, readiness and Prometheus metrics. */
  HTTP_PORT: portFromEnv(9464),
  /** NATS with JetStream (leases and membership live in KV buckets). */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** MongoDB (or a MongoDB-wire server) holding keys, plans, connections and usage. */
  MONGODB_URI: z.string().min(1),
  /** Number of key partitions P. Every actor and every edge must agree on it. */
  PARTITIONS: z.coerce.number().int().min(1).max(4096).default(DEFAULT_PARTITIONS),
  /** Prefix of the per-partition subjects (<prefix>.p<n>.decide / .control). */
  SUBJECT_PREFIX: z.string().default(DEFAULT_SUBJECT_PREFIX),
  /** KV bucket of the nodes' leases (the live members) and of the partitions held on them. */
  LEASE_BUCKET: z.string().default('gw_quota_leases'),
  /**
   * A node's lease (one per process, for all the partitions it holds) lives this long unless renewed; a dead owner's
   * partitions move after at most this long plus the margin and a tick, which leaves room within the 2 s takeover
   * for the new owner's first database reads.
   */
  LEASE_TTL_MS: durationMsFromEnv(800),
  /** Holders stop deciding this long before expiry and contenders wait this long after it: no overlap. */
  LEASE_MARGIN_MS: durationMsFromEnv(100),
  /** How often free or orphaned partitions are looked for (the node's lease is renewed at half its life). */
  OWNERSHIP_TICK_MS: durationMsFromEnv(100),
  /**
   * How often counted usage is written to MongoDB: one update per key used since the last write, so the cost
   * follows the active keys, not the request rate. It bounds what a crash can lose in metered mode (counts of at
   * most this long, in the customer's favour); block mode never depends on it (reservations are written first).
   * 5 s keeps the database at one update per active key every 5 s (20,000/s for 100,000 busy keys), while /v1/me
   * stays exact (the owner answers from memory) and the portal's usage is at most this stale.
   */
  USAGE_FLUSH_MS: durationMsFromEnv(5000),
  /**
   * How old the figures of a customer's other keys may get before an owner reads them again (in the background)
   * for the quota it reports on every answer; /v1/me and check_quota read them at once. The other owners write
   * their counts every USAGE_FLUSH_MS, so reading more often than that finds nothing new. The background reads of a
   * node go out together, one query at most every fifth of this (CustomerMonth's batchGapMs).
   */
  CUSTOMER_MONTH_REFRESH_MS: durationMsFromEnv(5000),
  /** How long an unknown key hash is remembered before MongoDB is asked again. */
  NEGATIVE_CACHE_MS: durationMsFromEnv(5000),
  /** Known keys are re-read in the background after 75-100 % of this (spread per key), behind key_changed messages. */
  RECORD_REFRESH_MS: durationMsFromEnv(60_000),
  /** Keys without a decision for this long are written out and dropped from memory. */
  IDLE_KEY_EVICT_MS: durationMsFromEnv(600_000),
  /** Identity of this process in leases; unique per process. */
  NODE_ID: z.string().default(`${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`),
});

export type Config = z.infer<typeof ConfigSchema>;
