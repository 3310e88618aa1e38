import type { KeyDecisionRecord } from '@gateway/store';
import { compileIpAllowlist, PROVIDER_IDS } from '@gateway/store';
import { RateLimiter, type RateLimiterStart } from '../limits/rate-limiter';
import type { UsageCounter } from '../limits/usage-counter';

/** What the owner keeps in memory for one key hash. */
export interface KeyEntry {
  hash: string;
  /** null: no key has this hash (cached briefly so random keys do not hammer MongoDB). */
  record: KeyDecisionRecord | null;
  /** The record's providers as bits (providerBit), so a decision does not walk the list and its strings. */
  providerBits: number;
  loadedAtMs: number;
  ipAllowed: ((address: string) => boolean) | null;
  limiter: RateLimiter | null;
  /** The month's usage; opened on the first counted request of the month. */
  usage: UsageCounter | null;
  /** Last decision for this key; idle keys are written out and forgotten. */
  lastSeenMs: number;
}

/**
 * Applies a freshly loaded record to the entry in place: whoever holds the entry (a decision waiting for its
 * month's usage to open) keeps working on the same object, so no counted unit can land on a discarded copy.
 */
export function applyRecord(
  entry: KeyEntry,
  record: KeyDecisionRecord | null,
  nowMs: number,
  rateStart?: RateLimiterStart,
): void {
  const fresh = buildKeyEntry(entry.hash, record, nowMs, entry, rateStart);
  entry.record = fresh.record;
  entry.providerBits = fresh.providerBits;
  entry.loadedAtMs = fresh.loadedAtMs;
  entry.ipAllowed = fresh.ipAllowed;
  entry.limiter = fresh.limiter;
}

export function buildKeyEntry(
  hash: string,
  record: KeyDecisionRecord | null,
  nowMs: number,
  previous?: KeyEntry,
  /** Where the partition's previous owner left this key's bucket (RateLimiter). */
  rateStart?: RateLimiterStart,
): KeyEntry {
  const limiter =
    record === null
      ? null
      : previous?.limiter &&
          previous.limiter.rps === record.plan.rate_limit_rps &&
          previous.limiter.burst === record.plan.rate_burst
        ? previous.limiter
        : new RateLimiter(record.plan.rate_limit_rps, record.plan.rate_burst, rateStart);
  return {
    hash,
    record,
    providerBits: record === null ? 0 : record.providers.reduce((bits, provider) => bits | providerBit(provider), 0),
    loadedAtMs: nowMs,
    ipAllowed: record && record.ip_allowlist.length > 0 ? compileIpAllowlist(record.ip_allowlist) : null,
    limiter,
    usage: previous?.usage ?? null,
    lastSeenMs: previous?.lastSeenMs ?? nowMs,
  };
}

/** The bit of a provider id in KeyEntry.providerBits; 0 for anything that is not one. */
export function providerBit(provider: string): number {
  for (let index = 0; index < PROVIDER_IDS.length; index++) if (PROVIDER_IDS[index] === provider) return 1 << index;
  return 0;
}

/**
 * Between 75 % and 100 % of the refresh interval, fixed per key by its hash: keys loaded together (a new owner, a
 * restart, a benchmark) come due at different moments, so their reloads trickle instead of reaching the database as
 * one burst every interval.
 */
export function refreshAfterMs(hash: string, intervalMs: number): number {
  const spread = Number.parseInt(hash.slice(0, 4), 16) / 0xffff;
  return Number.isNaN(spread) ? intervalMs : intervalMs * (0.75 + 0.25 * spread);
}
