import type { KeyDecisionLoader, KeyDecisionRecord } from '@gateway/store';

/** The most hashes one load asks for: bounds the size of its `$in` queries. */
const MAX_LOAD = 256;

interface Waiter {
  resolve: (record: KeyDecisionRecord | null) => void;
  reject: (reason: unknown) => void;
}

/**
 * Gathers the key loads asked for in one event-loop turn, by every partition of the node, into one batch load
 * (KeyDecisionLoader.loadDecisionRecords): keys come due together (a new owner's first batches, refreshes after a
 * pause in a key's traffic), and one load of a hundred keys costs a few queries where a hundred loads cost four
 * each, on both sides of the database connection.
 */
export class CoalescedKeyLoader {
  private pending = new Map<string, Waiter[]>();
  private scheduled = false;

  constructor(private readonly loader: Pick<KeyDecisionLoader, 'loadDecisionRecords'>) {}

  loadDecisionRecord(hash: string): Promise<KeyDecisionRecord | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(hash);
      if (waiters === undefined) this.pending.set(hash, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.loadPending());
      }
    });
  }

  private loadPending(): void {
    this.scheduled = false;
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
