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

describe('answered batches in their ring', () => {
  const text = (body: string) => batchReplyText({ verdicts: [], owner: body });

  it('keeps every answer exact while its texts wrap around the end of the buffer', () => {
    const answered = new AnsweredBatches(() => 0, 64, 1_000);
    const sent = new Map<string, string>();
    for (let index = 0; index < 400; index++) {
      const id = `edge.${index.toString(36)}`;
      const reply = text('x'.repeat(index % 37));
      answered.remember(id, reply, 60_000);
      sent.set(id, reply);
      for (const back of [0, 1, 2, 5]) {
        const earlier = `edge.${Math.max(0, index - back).toString(36)}`;
        expect(answered.get(earlier)).toBe(sent.get(earlier));
      }
    }
    // The oldest went to make room for the newest: 1,000 bytes hold no more than about 20 of these texts.
    expect(answered.size).toBeLessThan(64);
    expect(answered.get('edge.0')).toBeUndefined();
  });

  it('never answers one batch with another’s text, whatever the ids and however the ring is bounded', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    let now = 0;
    const answered = new AnsweredBatches(() => now, 50, 2_048);
    const sent = new Map<string, string>();
    const callers = ['a', 'b.c', 'Zz9', ''];
    for (let round = 0; round < 3_000; round++) {
      now += random(40);
      const id = `${callers[random(callers.length)]}.${random(300).toString(36)}`;
      if (answered.get(id) === undefined) {
        const reply = text(`${id}:${round}:${'é'.repeat(random(20))}`);
        answered.remember(id, reply, random(4_000));
        sent.set(id, reply);
      }
      const probe = `${callers[random(callers.length)]}.${random(300).toString(36)}`;
      const found = answered.get(probe);
      if (found !== undefined) expect(found).toBe(sent.get(probe));
    }
  });

  it('tells apart ids that are not a caller and a canonical counter', () => {
    const answered = new AnsweredBatches(() => 0);
    const ids = ['e.1', 'e.01', 'e.A', 'e.', 'e', '.1', 'e.1.1', 'e.-1', 'e.zzzzzzzzzzz', 'e.zzzzzzzzzz', 'x.e.1'];
    for (const id of ids) answered.remember(id, text(id), 60_000);
    for (const id of ids) expect(answered.get(id)).toBe(text(id));
    expect(answered.get('e.2')).toBeUndefined();
    expect(answered.get('e.001')).toBeUndefined();
  });

  it('does not confuse two counters of one caller that are equal modulo its key range', () => {
    const answered = new AnsweredBatches(() => 0);
    const low = `edge.${(5).toString(36)}`;
    const high = `edge.${(5 + 2 ** 30).toString(36)}`;
    answered.remember(low, text('low'), 60_000);
    answered.remember(high, text('high'), 60_000);
    expect(answered.get(high)).toBe(text('high'));
    expect(answered.get(low)).not.toBe(text('high'));
  });

  it('keeps an answer larger than its byte bound, and smaller ones again after it', () => {
    const answered = new AnsweredBatches(() => 0, 16, 256);
    answered.remember('e.1', text('small'), 60_000);
    const large = text('L'.repeat(5_000));
    answered.remember('e.2', large, 60_000);
    expect(answered.get('e.2')).toBe(large);
    answered.remember('e.3', text('after'), 60_000);
    expect(answered.get('e.3')).toBe(text('after'));
    expect(answered.get('e.2')).toBe(large);
  });

  it('answers a batch decided twice with its later answer, and keeps it when the earlier one is forgotten', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    answered.remember('e.1', text('first'), 1_000);
    answered.remember('e.1', text('second'), 10_000);
    expect(answered.get('e.1')).toBe(text('second'));
    now = 5_000;
    answered.remember('e.2', text('other'), 10_000);
    expect(answered.size).toBe(2);
    expect(answered.get('e.1')).toBe(text('second'));
  });

  it('grows from a few slots to its bound as the load asks, keeping the order of forgetting', () => {
    const answered = new AnsweredBatches(() => 0, 1_000);
    for (let index = 0; index < 2_500; index++)
      answered.remember(`e.${index.toString(36)}`, text(String(index)), 60_000);
    expect(answered.size).toBe(1_000);
    expect(answered.get(`e.${(1_499).toString(36)}`)).toBeUndefined();
    expect(answered.get(`e.${(1_500).toString(36)}`)).toBe(text('1500'));
    expect(answered.get(`e.${(2_499).toString(36)}`)).toBe(text('2499'));
  });

  it('moves the kept answers when it grows after older ones were forgotten (slots and texts not at the front)', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    for (let index = 0; index < 50; index++) answered.remember(`old.${index.toString(36)}`, text('o'.repeat(200)), 0);
    answered.remember('mid.0', text('mid'), 60_000);
    now = 2_000;
    const kept: string[] = [];
    for (let index = 0; index < 300; index++) {
      const id = `new.${index.toString(36)}`;
      answered.remember(id, text(`${index}:${'n'.repeat(index)}`), 60_000);
      kept.push(id);
    }
    expect(answered.size).toBe(301);
    expect(answered.get('mid.0')).toBe(text('mid'));
    kept.forEach((id, index) => expect(answered.get(id)).toBe(text(`${index}:${'n'.repeat(index)}`)));
  });

  it('lets go of a caller with its last answer (an edge that restarted sends under a new instance)', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    for (const id of ['gone.1', 'gone.2', 'whole-id', 'stays.1'])
      answered.remember(id, text(id), id === 'stays.1' ? 9_000 : 1_000);
    expect(answered.callers).toBe(3);
    now = 5_000;
    answered.remember('stays.2', text('stays.2'), 9_000);
    expect(answered.callers).toBe(1);
    expect(answered.get('stays.1')).toBe(text('stays.1'));
  });

  it('keeps an answer whose caller was let go between asking for the batch and remembering it', () => {
    let now = 0;
    const answered = new AnsweredBatches(() => now);
    answered.remember('edge.1', text('one'), 1_000);
    expect(answered.get('edge.2')).toBeUndefined();
    now = 5_000;
    // Remembering first forgets edge.1, the caller's last answer, and with it the caller.
    answered.remember('edge.2', text('two'), 1_000);
    expect(answered.get('edge.2')).toBe(text('two'));
    expect(answered.callers).toBe(1);
  });
});
