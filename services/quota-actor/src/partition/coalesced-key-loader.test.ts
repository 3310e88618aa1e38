import { StoreError, type KeyDecisionRecord } from '@gateway/store';
import { CoalescedKeyLoader } from './coalesced-key-loader';

type Outcome = PromiseSettledResult<KeyDecisionRecord | null>;

const record = (hash: string) => ({ key_id: `key-${hash}` }) as unknown as KeyDecisionRecord;

/** A store that answers every hash with a record, except those named in `outcomes`, and records each batch. */
function recordingStore(outcomes: Record<string, Outcome> = {}, failWith?: Error) {
  const batches: string[][] = [];
  return {
    batches,
    loadDecisionRecords(hashes: readonly string[]): Promise<Map<string, Outcome>> {
      batches.push([...hashes]);
      if (failWith) return Promise.reject(failWith);
      return Promise.resolve(
        new Map(hashes.map((hash) => [hash, outcomes[hash] ?? { status: 'fulfilled', value: record(hash) }])),
      );
    },
  };
}

describe('CoalescedKeyLoader', () => {
  it('loads the keys asked for in one turn in one batch, each distinct hash once, and answers each caller its own', async () => {
    const store = recordingStore();
    const loader = new CoalescedKeyLoader(store);

    const answers = await Promise.all(['a', 'b', 'a', 'c'].map((hash) => loader.loadDecisionRecord(hash)));

    expect(store.batches).toEqual([['a', 'b', 'c']]);
    expect(answers.map((answer) => answer?.key_id)).toEqual(['key-a', 'key-b', 'key-a', 'key-c']);
  });

  it('starts a new batch for keys asked for after the last one left', async () => {
    const store = recordingStore();
    const loader = new CoalescedKeyLoader(store);

    await loader.loadDecisionRecord('a');
    await Promise.all([loader.loadDecisionRecord('a'), loader.loadDecisionRecord('b')]);

    expect(store.batches).toEqual([['a'], ['a', 'b']]);
  });

  it('rejects only the key the store rejected, and answers null for a key nobody has', async () => {
    const integrity = new StoreError('integrity', 'plan growth of c1 is missing');
    const store = recordingStore({
      orphan: { status: 'rejected', reason: integrity },
      unknown: { status: 'fulfilled', value: null },
    });
    const loader = new CoalescedKeyLoader(store);

    const settled = await Promise.allSettled(['a', 'orphan', 'unknown'].map((hash) => loader.loadDecisionRecord(hash)));

    expect(settled).toEqual([
      { status: 'fulfilled', value: record('a') },
      { status: 'rejected', reason: integrity },
      { status: 'fulfilled', value: null },
    ]);
  });

  it('rejects every caller of a batch whose load failed, and loads again on the next ask', async () => {
    const down = new Error('connection refused');
    const failing = recordingStore({}, down);
    const loader = new CoalescedKeyLoader(failing);

    const settled = await Promise.allSettled([loader.loadDecisionRecord('a'), loader.loadDecisionRecord('b')]);

    expect(settled.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(settled.map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual([down, down]);
    await expect(loader.loadDecisionRecord('a')).rejects.toBe(down);
    expect(failing.batches).toEqual([['a', 'b'], ['a']]);
  });

  it('splits a burst larger than one load into loads of at most 256 keys', async () => {
    const store = recordingStore();
    const loader = new CoalescedKeyLoader(store);
    const hashes = Array.from({ length: 600 }, (_, index) => `h${index}`);

    const answers = await Promise.all(hashes.map((hash) => loader.loadDecisionRecord(hash)));

    expect(store.batches.map((batch) => batch.length)).toEqual([256, 256, 88]);
    expect(store.batches.flat()).toEqual(hashes);
    expect(answers.map((answer) => answer?.key_id)).toEqual(hashes.map((hash) => `key-${hash}`));
  });

  it('gathers the refreshes asked for within the window into one load', async () => {
    const store = recordingStore();
    const loader = new CoalescedKeyLoader(store, 50);

    const first = loader.refreshDecisionRecord('a');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = loader.refreshDecisionRecord('b');
    expect(store.batches).toEqual([]);

    expect((await Promise.all([first, second])).map((answer) => answer?.key_id)).toEqual(['key-a', 'key-b']);
    expect(store.batches).toEqual([['a', 'b']]);
  });

  it('takes the waiting refreshes along with a load a decision waits on, and waits no longer for them', async () => {
    const store = recordingStore();
    const loader = new CoalescedKeyLoader(store, 60_000);

    const refreshed = loader.refreshDecisionRecord('a');
    const loaded = await loader.loadDecisionRecord('b');

    expect(loaded?.key_id).toBe('key-b');
    expect((await refreshed)?.key_id).toBe('key-a');
    expect(store.batches).toEqual([['a', 'b']]);
  });
});
