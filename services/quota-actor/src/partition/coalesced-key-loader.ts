import type { KeyDecisionLoader, KeyDecisionRecord } from '@gateway/store';

/** Where the partitions get key records: at once for a key a decision waits on, at leisure for a refresh. */
export interface KeyRecordSource {
  loadDecisionRecord(hash: string): Promise<KeyDecisionRecord | null>;
  /** The periodic reload of a key in use (a safety net behind key_changed): may wait to be loaded with others. */
  refreshDecisionRecord(hash: string): Promise<KeyDecisionRecord | null>;
}

/** The most hashes one load asks for: bounds the size of its `$in` queries. */
const MAX_LOAD = 256;

/**
 * How long a refresh waits for others. Keys come due for refresh one by one (each at its own point of the interval,
 * key-entry.ts), so refreshes gathered over a second share their customers' and plans' lookups, and past 16 keys
 * their keys' too; a second more on a minute's safety net changes nothing a customer sees.
 */
export const REFRESH_GATHER_MS = 1_000;

interface Waiter {
  resolve: (record: KeyDecisionRecord | null) => void;
  reject: (reason: unknown) => void;
}

/**
 * Gathers the key loads of the node's partitions into batch loads (KeyDecisionLoader.loadDecisionRecords): the loads
 * asked for in one event-loop turn (a new owner's first batches), with the refreshes waiting at that moment; and
 * refreshes over REFRESH_GATHER_MS. One load of a hundred keys costs a few queries where a hundred loads cost four
 * each, on both sides of the database connection.
 */
export class CoalescedKeyLoader implements KeyRecordSource {
  private pending = new Map<string, Waiter[]>();
  private immediate: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly loader: Pick<KeyDecisionLoader, 'loadDecisionRecords'>,
    private readonly refreshGatherMs = REFRESH_GATHER_MS,
  ) {}

  loadDecisionRecord(hash: string): Promise<KeyDecisionRecord | null> {
    const loaded = this.wait(hash);
    this.immediate ??= setImmediate(() => this.loadPending());
    return loaded;
  }

  refreshDecisionRecord(hash: string): Promise<KeyDecisionRecord | null> {
    const loaded = this.wait(hash);
    this.timer ??= setTimeout(() => this.loadPending(), this.refreshGatherMs).unref();
    return loaded;
  }

  private wait(hash: string): Promise<KeyDecisionRecord | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(hash);
      if (waiters === undefined) this.pending.set(hash, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
    });
  }

  private loadPending(): void {
    clearImmediate(this.immediate);
    clearTimeout(this.timer);
    this.immediate = undefined;
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const hashes = [...batch.keys()];
    for (let start = 0; start < hashes.length; start += MAX_LOAD) {
      const part = hashes.slice(start, start + MAX_LOAD);
      this.loader.loadDecisionRecords(part).then(
        (outcomes) => {
          for (const hash of part) {
            const outcome = outcomes.get(hash) ?? { status: 'fulfilled', value: null };
            for (const waiter of batch.get(hash)!) {
              if (outcome.status === 'fulfilled') waiter.resolve(outcome.value);
              else waiter.reject(outcome.reason);
            }
          }
        },
        (error: unknown) => {
          for (const hash of part) for (const waiter of batch.get(hash)!) waiter.reject(error);
        },
      );
    }
  }
}
