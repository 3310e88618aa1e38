import { batchReplyText } from '@gateway/decisions';
import { AnsweredBatches } from './answered-batches';

const reply = (owner: string) => batchReplyText({ verdicts: [], owner });

describe('answered batches', () => {
  it('answers a repeat for the batch’s retryForMs (plus a second) after deciding it, and forgets it after', () => {
    let now = 1_000_000;
    const answered = new AnsweredBatches(() => now);
    answered.remember('edge.1', reply('a'), 4_000);

    now += 4_999;
    answered.remember('edge.2', reply('a'), 4_000);
    expect(answered.get('edge.1')).toEqual(reply('a'));

    now += 2;
    answered.remember('edge.3', reply('a'), 4_000);
    expect(answered.get('edge.1')).toBeUndefined();
    expect(answered.get('edge.2')).toEqual(reply('a'));
    expect(answered.size).toBe(2);
  });

  it('keeps the answer to a caller that sends no retryForMs for 11 s', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    answered.remember('old.1', reply('a'), undefined);
    now = 10_999;
    answered.remember('old.2', reply('a'), undefined);
    expect(answered.get('old.1')).toBeDefined();
    now = 11_001;
    answered.remember('old.3', reply('a'), undefined);
    expect(answered.get('old.1')).toBeUndefined();
    expect(answered.get('old.2')).toBeDefined();
  });

  it('holds no more than its bound, dropping the oldest first', () => {
    const answered = new AnsweredBatches(() => 0, 3);
    for (const id of ['b.1', 'b.2', 'b.3', 'b.4']) answered.remember(id, reply(id), 60_000);
    expect(answered.size).toBe(3);
    expect(answered.get('b.1')).toBeUndefined();
    expect(answered.get('b.4')).toEqual(reply('b.4'));
  });

  it('stops forgetting at the first answer still wanted (a longer budget ahead of shorter ones)', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    answered.remember('long.1', reply('a'), 30_000);
    answered.remember('short.1', reply('a'), 2_000);
    now = 5_000;
    answered.remember('short.2', reply('a'), 2_000);
    // short.1 outlives its time behind long.1: kept a little longer, never shorter.
    expect(answered.get('short.1')).toBeDefined();
    now = 40_000;
    answered.remember('late.1', reply('a'), 4_000);
    expect(answered.size).toBe(1);
  });

  it('keeps answering the recent ones through thousands of batches (its queue of ids is compacted on the way)', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    for (let index = 0; index < 5_000; index++) {
      now = index * 10;
      answered.remember(`edge.${index}`, reply(String(index)), 4_000);
    }
    // 4 s of retry budget and 1 s of margin at one batch every 10 ms: the last 500 are kept.
    expect(answered.size).toBe(500);
    expect(answered.get('edge.4499')).toBeUndefined();
    expect(answered.get('edge.4500')).toEqual(reply('4500'));
    expect(answered.get('edge.4999')).toEqual(reply('4999'));
  });
});
