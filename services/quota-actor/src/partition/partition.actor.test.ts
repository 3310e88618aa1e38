import {
  batchReplyCodec,
  type DecisionBatch,
  type DecisionRequest,
  type OwnerReply,
  type Verdict,
} from '@gateway/decisions';
import { DEFAULT_PLANS, type KeyDecisionRecord } from '@gateway/store';
import { createLogger } from '@gateway/telemetry';
import type { NatsConnection } from 'nats';
import type { CustomerAllowance } from '../limits/customer-allowance';
import type { CustomerMonth } from '../limits/customer-month';
import type { UsageDelta, UsageLedger } from '../limits/usage-ledger';
import type { HeldLease } from '../ownership/lease-table';
import { PartitionActor, type PartitionActorDeps } from './partition.actor';

type Span = Parameters<PartitionActor['decideInQueue']>[1];
const span = { isRecording: () => false } as unknown as Span;

function keyRecord(overrides: Partial<KeyDecisionRecord['plan']> = {}): KeyDecisionRecord {
  return {
    key_id: 'dg_live_abcdefgh',
    customer_id: 'cus_1',
    status: 'active',
    source: 'portal',
    providers: ['video-ads'],
    account_ids: ['acct_a'],
    connections: [{ account_id: 'acct_a', provider: 'video-ads', status: 'active' }],
    ip_allowlist: [],
    plan: { ...DEFAULT_PLANS.growth, rate_limit_rps: 1000, rate_burst: 1000, ...overrides },
  };
}

/**
 * A partition actor over a ledger and an allowance in memory; `onDecision` lets a test act between a batch's
 * decisions and its answer (here: the lease running out, as it does when the node is starved of CPU).
 */
function actorWith(record: KeyDecisionRecord, overrides: Partial<PartitionActorDeps> = {}) {
  const lease: HeldLease = { partition: 0, epoch: 1, revision: 1, validUntil: Date.now() + 60_000 };
  const given = { suggestions: 0 };
  const hooks: { onDecision?: () => void } = {};
  /** Each flush as the ledger got it: the deltas, and what `leaseHeld` said when it was asked. */
  const flushed: { deltas: UsageDelta[]; leaseHeld: boolean }[] = [];
  const ledger = {
    flushGroupSize: 50,
    open: async () => ({ used: 0, reserved: 0, suggestionsUsed: 0, carriedOver: 0 }),
    grow: async (_key: string, _month: string, _epoch: number, units: number) => units,
    flush: async (deltas: UsageDelta[], _epoch: number, _nowMs: number, leaseHeld: () => boolean) => {
      flushed.push({ deltas, leaseHeld: leaseHeld() });
      return [];
    },
  } as unknown as UsageLedger;
  const allowance = {
    take: async (_c: string, _m: string, _kind: string, want: number) => want,
    giveBack: async (_c: string, _m: string, kind: string, units: number) => {
      if (kind === 'suggestions') given.suggestions += units;
    },
  } as unknown as CustomerAllowance;
  const actor = new PartitionActor(lease, {
    nc: {} as NatsConnection,
    nodeId: 'node-a',
    subjectPrefix: 'gw.test',
    loader: { loadDecisionRecord: async () => record, refreshDecisionRecord: async () => record },
    ledger,
    allowance,
    customerMonth: { peek: () => undefined, read: async () => undefined } as unknown as CustomerMonth,
    flushCustomer: async () => undefined,
    logger: createLogger('test', 'silent'),
    negativeTtlMs: 60_000,
    recordTtlMs: 60_000,
    onDecision: () => hooks.onDecision?.(),
    ...overrides,
  });
  return { actor, lease, given, hooks, flushed };
}

const request = (intent: DecisionRequest['intent']): DecisionRequest => ({
  keyHash: 'h',
  ip: '127.0.0.1',
  intent,
  ...(intent === 'forward' ? { provider: 'video-ads', pathAllowed: true } : {}),
});

/** As DecisionClient sends it: the attempt's deadline and what is left of the retry budget (answered-batches.ts). */
function batch(requests: DecisionRequest[], batchId: string): DecisionBatch {
  return { requests, expiresAt: Date.now() + 5_000, batchId, retryForMs: 5_000 };
}

/** The verdicts of an owner's reply, read back from its wire text when the owner answered with that. */
function verdictsOf(reply: OwnerReply): Verdict[] {
  const decoded = typeof reply === 'string' ? batchReplyCodec.fromText(reply) : reply;
  if (!('verdicts' in decoded)) throw new Error(`no verdicts: ${JSON.stringify(decoded)}`);
  return decoded.verdicts;
}

async function usedNow(actor: PartitionActor, batchId: string) {
  const [verdict] = verdictsOf(await actor.decideInQueue(batch([request('free')], batchId), span));
  if (!verdict!.ok) throw new Error(`refused: ${JSON.stringify(verdict)}`);
  return { used: verdict!.quota.used, suggestions: verdict!.suggestions?.used };
}

describe('partition actor', () => {
  it.each(['metered', 'block'] as const)(
    'counts nothing it admitted in a batch answered "not owner" because the lease ran out meanwhile (%s)',
    async (overageMode) => {
      const { actor, lease, hooks } = actorWith(keyRecord({ overage_mode: overageMode }));
      const forwards = batch([request('forward'), request('forward'), request('forward')], 'edge.1');
      hooks.onDecision = () => (lease.validUntil = Date.now() - 1);

      expect(await actor.decideInQueue(forwards, span)).toEqual({ notOwner: true });

      // The lease is renewed and the caller asks again under the same batch id: admitted once, counted once.
      hooks.onDecision = undefined;
      lease.validUntil = Date.now() + 60_000;
      const verdicts = verdictsOf(await actor.decideInQueue(forwards, span));
      expect(verdicts.map((verdict) => verdict.ok)).toEqual([true, true, true]);
      expect((await usedNow(actor, 'edge.2')).used).toBe(3);
    },
  );

  it('gives back a suggestion granted in a batch whose answer was withheld', async () => {
    const { actor, lease, given, hooks } = actorWith(keyRecord({ suggestion_allowance: 10 }));
    hooks.onDecision = () => (lease.validUntil = Date.now() - 1);

    expect(await actor.decideInQueue(batch([request('suggest')], 'edge.1'), span)).toEqual({ notOwner: true });

    hooks.onDecision = undefined;
    lease.validUntil = Date.now() + 60_000;
    await new Promise((resolve) => setImmediate(resolve));
    expect(given.suggestions).toBe(1);
    expect((await usedNow(actor, 'edge.2')).suggestions).toBe(0);
  });

  it.each(['metered', 'block'] as const)(
    'tells the ledger whether its %s counts were admitted against a reservation and whether its lease still holds',
    async (overageMode) => {
      const { actor, lease, flushed } = actorWith(keyRecord({ overage_mode: overageMode }));
      await actor.decideInQueue(batch([request('forward')], 'edge.1'), span);
      await actor.flush();
      await actor.decideInQueue(batch([request('forward')], 'edge.2'), span);
      lease.validUntil = Date.now() - 1;
      await actor.flush();

      // Past the lease a block-mode count must not land on a newer owner's month (usage-ledger.ts); a metered one may.
      const block = overageMode === 'block';
      expect(
        flushed.map(({ deltas, leaseHeld }) => ({
          leaseHeld,
          used: deltas[0]!.used,
          againstReservation: deltas[0]!.againstReservation === true,
        })),
      ).toEqual([
        { leaseHeld: true, used: 1, againstReservation: block },
        { leaseHeld: false, used: 1, againstReservation: block },
      ]);
    },
  );

  it('flushes in the ledger’s group size and writes a failed group again on its own, counting nothing twice', async () => {
    const written: number[][] = [];
    let failNext = true;
    const ledger = {
      flushGroupSize: 2,
      open: async () => ({ used: 0, reserved: 0, suggestionsUsed: 0, carriedOver: 0 }),
      flush: async (deltas: UsageDelta[]) => {
        if (failNext) {
          failNext = false;
          throw new Error('database gone');
        }
        written.push(deltas.map((delta) => delta.used));
        return [];
      },
    } as unknown as UsageLedger;
    const { actor } = actorWith(keyRecord({ overage_mode: 'metered' }), { ledger });
    const forwardAs = (keyHash: string) => ({ ...request('forward'), keyHash });
    await actor.decideInQueue(batch(['h1', 'h2', 'h3'].map(forwardAs), 'edge.1'), span);

    await actor.flush(); // the first group of two fails and is kept; the third key's group lands
    await actor.flush();
    expect(written).toEqual([[1], [1, 1]]);
  });

  it('answers a repeated batch from memory without counting it again', async () => {
    const { actor } = actorWith(keyRecord());
    const forwards = batch([request('forward')], 'edge.1');
    const first = await actor.decideInQueue(forwards, span);

    expect(await actor.decideInQueue(forwards, span)).toBe(first);
    expect((await usedNow(actor, 'edge.2')).used).toBe(1);
  });

  it('decides a batch of known keys at once when nothing is queued, and queues a batch behind one that waits', async () => {
    let release: (record: KeyDecisionRecord) => void = () => undefined;
    const loaded = new Promise<KeyDecisionRecord>((resolve) => (release = resolve));
    const record = keyRecord({ rate_limit_rps: 1, rate_burst: 5 });
    const { actor } = actorWith(record, {
      loader: { loadDecisionRecord: () => loaded, refreshDecisionRecord: async () => record },
    });
    const remaining = (reply: OwnerReply) => verdictsOf(reply).map((verdict) => verdict.rate?.remaining);

    // The key is not in memory yet: the first batch waits for its record, and the next one waits behind it.
    const first = actor.decideInQueue(batch([request('forward')], 'edge.1'), span);
    const second = actor.decideInQueue(batch([request('forward')], 'edge.2'), span);
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    release(record);
    expect(remaining(await second)).toEqual([3]);
    expect(remaining(await first)).toEqual([4]);

    // Once the queue has drained, the next batch is decided in the same turn, without a promise.
    await new Promise((resolve) => setImmediate(resolve));
    const third = actor.decideInQueue(batch([request('forward'), request('forward')], 'edge.3'), span);
    expect(third).not.toBeInstanceOf(Promise);
    expect(remaining(third as OwnerReply)).toEqual([2, 1]);
  });

  it("gives a decision a span of its own only in a sampled trace: an unsampled one is decided in the batch's turn", async () => {
    const { actor } = actorWith(keyRecord());
    const traced = (flags: string): DecisionRequest =>
      Object.assign(request('forward'), {
        traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags}`,
      });
    await actor.decideInQueue(batch([request('forward')], 'edge.1'), span);
    await new Promise((resolve) => setImmediate(resolve));

    const unsampled = actor.decideInQueue(batch([traced('00'), traced('00')], 'edge.2'), span);
    expect(unsampled).not.toBeInstanceOf(Promise);
    expect(verdictsOf(unsampled as OwnerReply).map((verdict) => verdict.ok)).toEqual([true, true]);

    // A sampled one goes through its consumer span, which waits for the decision.
    const sampled = actor.decideInQueue(batch([traced('01')], 'edge.3'), span);
    expect(sampled).toBeInstanceOf(Promise);
    expect(verdictsOf(await sampled).map((verdict) => verdict.ok)).toEqual([true]);
  });

  it('logs nothing for a key refresh that fails after the partition stopped (the store may be closing)', async () => {
    const logger = createLogger('test', 'silent');
    const warn = jest.spyOn(logger, 'warn');
    let failRefresh: (error: Error) => void = () => undefined;
    const refreshDecisionRecord = () =>
      new Promise<KeyDecisionRecord | null>((_resolve, reject) => {
        failRefresh = reject;
      });
    const record = keyRecord();
    const { actor } = actorWith(record, {
      logger,
      recordTtlMs: 1,
      loader: { loadDecisionRecord: async () => record, refreshDecisionRecord },
    });
    await usedNow(actor, 'edge.1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await usedNow(actor, 'edge.2'); // past its refresh interval: the key's refresh starts and waits

    await actor.stop();
    failRefresh(new Error('client was closed'));
    await new Promise((resolve) => setImmediate(resolve));

    expect(warn).not.toHaveBeenCalled();
  });
});
