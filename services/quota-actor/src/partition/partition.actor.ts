import {
  batchCodec,
  batchReplyCodec,
  batchReplyText,
  controlCodec,
  controlReplyCodec,
  keyChangedSubject,
  partitionSubjects,
  type ControlMessage,
  type PartitionSubjects,
  type DecisionBatch,
  type DecisionBatchReply,
  type DecisionRequest,
  type OwnerReply,
  type Verdict,
} from '@gateway/decisions';
import type { KeyDecisionRecord } from '@gateway/store';
import { isSampledTraceparent, setSafeAttributes, withConsumerSpan, type Logger } from '@gateway/telemetry';
import { headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from 'nats';
import { monthOf } from '../limits/calendar';
import type { CustomerAllowance } from '../limits/customer-allowance';
import type { CustomerMonth } from '../limits/customer-month';
import { UsageCounter } from '../limits/usage-counter';
import { FencedError, type UsageDelta, type UsageLedger } from '../limits/usage-ledger';
import type { HeldLease } from '../ownership/lease-table';
import { applyRecord, buildKeyEntry, refreshAfterMs, type KeyEntry } from './key-entry';
import type { RateLimiterStart } from '../limits/rate-limiter';
import { decideForKey, type UsageAccess } from './key-decider';
import { AnsweredBatches } from './answered-batches';
import type { KeyRecordSource } from './coalesced-key-loader';

export interface PartitionActorDeps {
  nc: NatsConnection;
  /** Named in every answer, so callers send this partition's next batches to the node's own subject. */
  nodeId: string;
  subjectPrefix: string;
  loader: KeyRecordSource;
  ledger: UsageLedger;
  /** The customer's monthly allowance, shared by all its keys on every node (block mode, suggestions). */
  allowance: CustomerAllowance;
  /** The customer's month as its keys used it, for the figures reported to callers. */
  customerMonth: CustomerMonth;
  /** Has every node write the customer's unflushed counts (before /v1/me reads the customer's month). */
  flushCustomer: (customerId: string) => Promise<void>;
  logger: Logger;
  /** Keys unknown to MongoDB are remembered this long. */
  negativeTtlMs: number;
  /** Known keys are reloaded in the background after this long (a safety net behind key_changed). */
  recordTtlMs: number;
  onDecision?: (verdict: Verdict) => void;
  onReservation?: ReservationObserver;
  onFenced?: (partition: number) => void;
}

/** How long a reservation took the ledger (seconds) and how it ended: the wait behind a 503 from a slow ledger. */
export type ReservationObserver = (seconds: number, outcome: 'granted' | 'used_up' | 'failed') => void;

/** A span as @gateway/telemetry hands it out (quota-actor does not depend on @opentelemetry/api itself). */
type Span = Parameters<typeof setSafeAttributes>[0];

/**
 * Whether a decision gets a span of its own: only in a sampled trace. Under an unsampled parent the span would record
 * nothing, yet it cost a context, a promise and a turn of the microtask queue per decision (docs/benchmarks.md,
 * "Tracing as the chart ships it"); an edge of an earlier version still sends every traceparent.
 */
function isTraced(request: DecisionRequest): boolean {
  return request.traceparent !== undefined && isSampledTraceparent(request.traceparent);
}

const UNAVAILABLE: Verdict = { ok: false, code: 'service_unavailable', detail: 'the key could not be loaded' };

/**
 * The single owner of one partition's keys. Work is serialised per partition (one batch at a time), which is
 * what makes the counts exact: nothing else decides for these keys while the lease is held.
 */
export class PartitionActor {
  private readonly entries = new Map<string, KeyEntry>();
  private readonly loading = new Map<string, Promise<KeyEntry>>();
  private subscriptions: Subscription[] = [];
  private tail: Promise<void> = Promise.resolve();
  /** Tasks in the queue, the one running included: with none, a batch is decided at once (decideInQueue). */
  private queued = 0;
  /**
   * Ledger writes of this partition, one at a time. Decisions do not wait for flushes, but a reservation and a
   * flush of the same key never overlap: FerretDB applies an update as read-modify-write of the whole document,
   * so two concurrent updates of one document can lose one (MongoDB would not, but the order costs nothing).
   */
  private writes: Promise<unknown> = Promise.resolve();
  /** Reservations under way (they may outlive the decision that started them); stop() waits for them. */
  private readonly reserving = new Set<Promise<boolean>>();
  private stopped = false;
  private periodicFlushRunning = false;
  private readonly answeredBatches = new AnsweredBatches();
  private readonly usageAccess: UsageAccess;
  private readonly subjects: PartitionSubjects;

  constructor(
    readonly lease: HeldLease,
    private readonly deps: PartitionActorDeps,
  ) {
    this.subjects = partitionSubjects(deps.subjectPrefix, lease.partition);
    this.usageAccess = {
      open: async (entry, month) => {
        const keyId = entry.record!.key_id;
        const snapshot = await this.serialWrite(() => deps.ledger.open(keyId, month, lease.epoch, Date.now()));
        entry.usage = new UsageCounter(month, snapshot);
        return entry.usage;
      },
      reserve: (entry, usage, want) => {
        const reserving = this.reserve(entry, usage, want);
        this.reserving.add(reserving);
        void reserving.catch(() => undefined).finally(() => this.reserving.delete(reserving));
        return reserving;
      },
      takeSuggestion: async (entry, usage) => {
        const record = entry.record!;
        const allowance = record.plan.suggestion_allowance;
        if (allowance <= 0) return false;
        const month = usage.month;
        return (await deps.allowance.take(record.customer_id, month, 'suggestions', 1, allowance, record.key_id)) > 0;
      },
      customerShares: (entry, usage, nowMs) => deps.customerMonth.peek(entry.record!.customer_id, usage.month, nowMs),
      readCustomerShares: async (entry, usage) => {
        const customerId = entry.record!.customer_id;
        await deps.flushCustomer(customerId).catch((error: unknown) => {
          deps.logger.warn({ err: error, partition: this.partition }, 'customer flush request failed');
        });
        return deps.customerMonth.read(customerId, usage.month, { fresh: true });
      },
    };
  }

  get partition(): number {
    return this.lease.partition;
  }

  async start(): Promise<void> {
    const { decide, control } = this.subjects;
    this.subscriptions = [
      this.deps.nc.subscribe(decide, { callback: (_error, msg) => this.enqueue(() => this.onDecide(msg)) }),
      this.deps.nc.subscribe(control, { callback: (_error, msg) => this.enqueue(() => this.onControl(msg)) }),
    ];
    // Make sure the server knows the subscriptions before anyone is told the partition is served.
    await this.deps.nc.flush();
  }

  /** Stops answering, finishes queued work, writes all usage and shrinks reservations to what was used. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    await this.tail;
    // A reservation that lands after the release would reserve units nobody uses until the next owner opens the key.
    await Promise.allSettled([...this.reserving]);
    await this.flush(true);
  }

  /** Where the previous owner left this key's rate bucket (see HeldLease.previous). */
  private rateStart(hash: string): RateLimiterStart | undefined {
    const previous = this.lease.previous;
    if (!previous) return undefined;
    if ('diedAt' in previous) return { spentAtMs: previous.diedAt };
    const tatMs = previous.rates[hash];
    return tatMs === undefined ? undefined : { tatMs };
  }

  /** Rate buckets that are not full, for the next owner (a clean handover after stop()). */
  rateHandover(): Record<string, number> {
    const now = Date.now();
    const rates: Record<string, number> = {};
    // Buckets handed to this owner for keys it has not decided since still hold.
    const previous = this.lease.previous;
    if (previous && 'rates' in previous) {
      for (const [hash, tat] of Object.entries(previous.rates)) if (tat > now) rates[hash] = tat;
    }
    for (const [hash, entry] of this.entries) {
      const tat = entry.limiter?.handoverState(now);
      if (tat !== undefined) rates[hash] = tat;
    }
    return rates;
  }

  /** Whether the lease is valid now: a ledger write sent while it is can go by `_id` alone on FerretDB. */
  private readonly leaseHeld = (): boolean => Date.now() < this.lease.validUntil;

  private owns(): boolean {
    return !this.stopped && Date.now() < this.lease.validUntil;
  }

  private enqueue(task: () => Promise<void>): void {
    this.queued++;
    this.tail = this.tail
      .then(task)
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, partition: this.partition }, 'partition task failed');
      })
      .then(() => {
        this.queued--;
      });
  }

  /** The batch is one CONSUMER span (child of the edge's producer span, from the message headers). */
  private onDecide(msg: Msg): Promise<void> {
    return withConsumerSpan(
      `${this.deps.subjectPrefix} decide`,
      msg,
      async (span) => {
        msg.respond(batchReplyCodec.encode(await this.decideBatch(batchCodec.decode(msg.data), span)));
      },
      { 'gateway.partition': this.partition },
    );
  }

  /**
   * One part of a node batch (ActorNode): decided in this partition's queue, exactly like a batch that came on the
   * partition's own subject. With nothing queued it is decided at once, and most parts then need no promise at all
   * (every key in memory, no reservation to wait for): a node batch carries a part for each of up to 16 partitions,
   * and a queued task per part cost the node more than its decisions. A part that has to wait holds the queue until
   * it is answered. A part that fails unexpectedly is refused as not owned, so the caller asks again on the
   * partition subject rather than waiting for a timeout.
   */
  decideInQueue(batch: DecisionBatch, span: Span): OwnerReply | Promise<OwnerReply> {
    if (this.queued === 0) {
      const reply = this.decideOrRefuse(batch, span);
      if (reply instanceof Promise) this.enqueue(() => reply.then(() => undefined));
      return reply;
    }
    return new Promise((resolve) => {
      this.enqueue(async () => resolve(await this.decideOrRefuse(batch, span)));
    });
  }

  /** A part that fails unexpectedly is answered as not owned (the caller asks again) and the failure logged. */
  private decideOrRefuse(batch: DecisionBatch, span: Span): OwnerReply | Promise<OwnerReply> {
    const refuse = (error: unknown): DecisionBatchReply => {
      this.deps.logger.error({ err: error, partition: this.partition }, 'partition task failed');
      return { notOwner: true };
    };
    try {
      const reply = this.decideBatch(batch, span);
      return reply instanceof Promise ? reply.catch(refuse) : reply;
    } catch (error) {
      return refuse(error);
    }
  }

  private decideBatch(batch: DecisionBatch, batchSpan: Span): OwnerReply | Promise<OwnerReply> {
    const { requests, expiresAt, batchId } = batch;
    if (!this.owns()) {
      setSafeAttributes(batchSpan, { 'gateway.not_owner': true });
      return { notOwner: true };
    }
    const answered = batchId === undefined ? undefined : this.answeredBatches.get(batchId);
    // A repeated attempt (its first answer was late, or went to a node that lost the partition): the same
    // verdicts, nothing counted again.
    if (answered) return answered;
    setSafeAttributes(batchSpan, { 'messaging.batch.message_count': requests.length });
    if (expiresAt !== undefined && Date.now() > expiresAt) {
      // The caller stopped waiting (overload): deciding now would count requests nobody will send.
      setSafeAttributes(batchSpan, { 'gateway.expired': true });
      return { expired: true };
    }
    const missing = this.missingKeys(requests);
    if (missing.length === 0) return this.decideFrom(batch, 0, []);
    return Promise.allSettled(missing.map((hash) => this.entry(hash))).then(() =>
      expiresAt !== undefined && Date.now() > expiresAt ? { expired: true } : this.decideFrom(batch, 0, []),
    );
  }

  /** Decides the batch's requests from `start` on, in order; synchronous until a decision has to wait. */
  private decideFrom(batch: DecisionBatch, start: number, verdicts: Verdict[]): OwnerReply | Promise<OwnerReply> {
    const { requests } = batch;
    for (let index = start; index < requests.length; index++) {
      const request = requests[index]!;
      const verdict = isTraced(request) ? this.tracedDecision(request) : this.decideOne(request);
      if (verdict instanceof Promise) {
        return verdict.then((decided) => {
          verdicts.push(decided);
          return this.decideFrom(batch, index + 1, verdicts);
        });
      }
      verdicts.push(verdict);
    }
    // The lease ran out while we worked: do not let the caller act on verdicts a new owner may contradict.
    // (A clean stop keeps the lease until its usage is written, so its last batches are still answered.)
    if (Date.now() >= this.lease.validUntil) {
      this.uncount(requests, verdicts);
      return { notOwner: true };
    }
    const reply: DecisionBatchReply = { verdicts, owner: this.deps.nodeId };
    if (batch.batchId === undefined) return reply;
    // Encoded once: the text is both what the caller gets and what a repeated attempt will get.
    const text = batchReplyText(reply);
    this.answeredBatches.remember(batch.batchId, text, batch.retryForMs);
    return text;
  }

  /**
   * Admissions the caller never hears of count nothing: it asks again (this node once its lease is renewed, or the
   * next owner), and the month would otherwise hold those units twice. Their rate units stay taken: a unit given
   * back after the bucket refilled would let the key pass its burst, and a repeat refused for rate says when to
   * retry.
   */
  private uncount(requests: DecisionRequest[], verdicts: Verdict[]): void {
    const now = Date.now();
    requests.forEach((request, index) => {
      const verdict = verdicts[index]!;
      if (!verdict.ok) return;
      if (request.intent === 'forward') this.entries.get(request.keyHash)?.usage?.refund(now, 1);
      else if (request.intent === 'suggest' && verdict.suggestions?.granted) {
        void this.refundSuggestion(request.keyHash).catch((error: unknown) => {
          this.deps.logger.warn({ err: error, partition: this.partition }, 'suggestion give-back failed');
        });
      }
    });
  }

  private missingKeys(requests: DecisionRequest[]): string[] {
    const missing: string[] = [];
    for (const { keyHash } of requests) {
      if (!this.entries.has(keyHash) && !missing.includes(keyHash)) missing.push(keyHash);
    }
    return missing;
  }

  /**
   * One span per decision, child of the request that asked for it (DecisionRequest.traceparent: the edge's request
   * span), so each request's trace shows its own verdict even when its decision shared a batch with others.
   */
  private tracedDecision(request: DecisionRequest): Promise<Verdict> {
    const parent = natsHeaders();
    parent.set('traceparent', request.traceparent!);
    return withConsumerSpan(
      'quota-actor decision',
      { subject: this.subjects.decide, headers: parent },
      async (span) => {
        const verdict = await this.decideOne(request);
        setSafeAttributes(span, {
          'gateway.intent': request.intent,
          'gateway.provider': request.provider,
          'gateway.key_id': verdict.keyId,
          'gateway.decision': verdict.ok ? 'admitted' : verdict.code,
        });
        return verdict;
      },
      { 'gateway.partition': this.partition },
    );
  }

  private decideOne(request: DecisionRequest): Verdict | Promise<Verdict> {
    const cached = this.cachedEntry(request.keyHash);
    if (cached !== undefined) return this.decideFor(cached, request);
    return this.loadEntry(request.keyHash).then(
      (entry) => this.decideFor(entry, request),
      (error: unknown) => this.failed(error),
    );
  }

  private decideFor(entry: KeyEntry, request: DecisionRequest): Verdict | Promise<Verdict> {
    let verdict: Verdict | Promise<Verdict>;
    try {
      const now = Date.now();
      entry.lastSeenMs = now;
      verdict = decideForKey(entry, request, now, this.usageAccess);
    } catch (error) {
      return this.failed(error);
    }
    if (verdict instanceof Promise) {
      return verdict.then(
        (decided) => this.decided(decided, entry),
        (error: unknown) => this.failed(error),
      );
    }
    return this.decided(verdict, entry);
  }

  private decided(verdict: Verdict, entry?: KeyEntry): Verdict {
    // An unknown key stays unknown here until the negative cache runs out (or the key is created, announced).
    if (!verdict.ok && verdict.code === 'invalid_api_key' && entry?.record === null) {
      verdict.holdMs = Math.max(0, this.deps.negativeTtlMs - (Date.now() - entry.loadedAtMs));
    }
    this.deps.onDecision?.(verdict);
    return verdict;
  }

  private failed(error: unknown): Verdict {
    if (error instanceof FencedError) this.fenced();
    else this.deps.logger.error({ err: error, partition: this.partition }, 'decision failed');
    return this.decided(UNAVAILABLE);
  }

  private onControl(msg: Msg): Promise<void> {
    return withConsumerSpan(`${this.deps.subjectPrefix} control`, msg, () => this.control(msg), {
      'gateway.partition': this.partition,
    });
  }

  private async control(msg: Msg): Promise<void> {
    if (!this.owns()) {
      msg.respond(controlReplyCodec.encode({ notOwner: true }));
      return;
    }
    const message: ControlMessage = controlCodec.decode(msg.data);
    if (message.op === 'key_changed') {
      await this.reload(message.keyHash);
      // Before the acknowledgement: callers drop their held refusals of the key (RefusalHold) by the time the
      // change is reported done.
      this.deps.nc.publish(keyChangedSubject(this.deps.subjectPrefix), message.keyHash);
      await this.deps.nc.flush();
    } else if (message.op === 'refund_suggestion') await this.refundSuggestion(message.keyHash);
    else this.entries.get(message.keyHash)?.usage?.refund(Date.now(), message.count);
    msg.respond(controlReplyCodec.encode({ ok: true }));
  }

  /** A suggestion the AI failed to give (timeout, invalid answer) goes back to the key and to the customer. */
  private async refundSuggestion(hash: string): Promise<void> {
    const entry = this.entries.get(hash);
    const usage = entry?.usage;
    if (!entry?.record || !usage?.refundSuggestion()) return;
    await this.deps.allowance.giveBack(entry.record.customer_id, usage.month, 'suggestions', 1, entry.record.key_id);
  }

  /** Applies a key change from MongoDB before acknowledging it; a revoked key's usage is written out at once. */
  private async reload(hash: string): Promise<void> {
    const record = await this.deps.loader.loadDecisionRecord(hash);
    const entry = this.upsertEntry(hash, record);
    if (record && record.status !== 'active' && entry.usage) await this.flush(true, [entry]);
  }

  private upsertEntry(hash: string, record: KeyDecisionRecord | null): KeyEntry {
    const existing = this.entries.get(hash);
    if (existing) {
      applyRecord(existing, record, Date.now(), this.rateStart(hash));
      return existing;
    }
    const entry = buildKeyEntry(hash, record, Date.now(), undefined, this.rateStart(hash));
    this.entries.set(hash, entry);
    return entry;
  }

  private entry(hash: string): Promise<KeyEntry> {
    const cached = this.cachedEntry(hash);
    return cached === undefined ? this.loadEntry(hash) : Promise.resolve(cached);
  }

  /** The key's entry while it is fresh enough to decide on; a known key past its TTL is refreshed in the background. */
  private cachedEntry(hash: string): KeyEntry | undefined {
    const cached = this.entries.get(hash);
    if (!cached) return undefined;
    const now = Date.now();
    const ttl = cached.record === null ? this.deps.negativeTtlMs : refreshAfterMs(hash, this.deps.recordTtlMs);
    if (now - cached.loadedAtMs < ttl) return cached;
    if (cached.record === null) return undefined;
    cached.loadedAtMs = now; // one background refresh at a time
    void this.refresh(hash);
    return cached;
  }

  private loadEntry(hash: string): Promise<KeyEntry> {
    let pending = this.loading.get(hash);
    if (!pending) {
      pending = this.deps.loader
        .loadDecisionRecord(hash)
        .then((record: KeyDecisionRecord | null) => this.upsertEntry(hash, record))
        .finally(() => this.loading.delete(hash));
      this.loading.set(hash, pending);
    }
    return pending;
  }

  private async refresh(hash: string): Promise<void> {
    try {
      const record = await this.deps.loader.refreshDecisionRecord(hash);
      // A refresh waits to be loaded with others (CoalescedKeyLoader): the partition may have stopped meanwhile.
      if (this.stopped) return;
      // Applied in the partition's queue, between decisions, never in the middle of one.
      this.enqueue(async () => {
        const before = this.entries.get(hash)?.record;
        this.upsertEntry(hash, record);
        // A change nobody announced (a plan changed in the database): held refusals of the key end here.
        if (JSON.stringify(before) !== JSON.stringify(record)) {
          this.deps.nc.publish(keyChangedSubject(this.deps.subjectPrefix), hash);
        }
      });
    } catch (error) {
      // After stop() the store may be closing under a pending refresh, a safety net that nobody needs any more.
      if (!this.stopped) {
        this.deps.logger.warn({ err: error, partition: this.partition }, 'background key refresh failed');
      }
    }
  }

  /**
   * Forgets keys without a decision for `idleMs`, after writing their usage and giving back their unused
   * reservation, so memory follows the active keys rather than every key ever seen.
   */
  evictIdle(idleMs: number): void {
    this.enqueue(async () => {
      const cutoff = Date.now() - idleMs;
      const idle = [...this.entries.values()].filter((entry) => entry.lastSeenMs < cutoff);
      if (idle.length === 0) return;
      await this.flush(true, idle);
      for (const entry of idle) {
        if (!entry.usage?.dirty && entry.lastSeenMs < cutoff) this.entries.delete(entry.hash);
      }
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Takes up to `want` units from the customer's allowance into the key's reservation. A write fenced off by a newer
   * owner gives the partition up; any failure is logged here, since the decision that started it may be gone.
   */
  private reserve(entry: KeyEntry, usage: UsageCounter, want: number): Promise<boolean> {
    const startedAt = performance.now();
    const outcome = this.reserveUnits(entry, usage, want);
    void outcome.then(
      (granted) => this.deps.onReservation?.((performance.now() - startedAt) / 1000, granted ? 'granted' : 'used_up'),
      () => this.deps.onReservation?.((performance.now() - startedAt) / 1000, 'failed'),
    );
    return outcome;
  }

  private async reserveUnits(entry: KeyEntry, usage: UsageCounter, want: number): Promise<boolean> {
    const record = entry.record!;
    const { customer_id: customerId, key_id: keyId } = record;
    try {
      const taken = await this.deps.allowance.take(
        customerId,
        usage.month,
        'requests',
        want,
        record.plan.monthly_quota,
        keyId,
      );
      if (taken === 0) return false;
      try {
        usage.reserved = await this.serialWrite(() =>
          this.deps.ledger.grow(keyId, usage.month, this.lease.epoch, taken, this.leaseHeld),
        );
      } catch (error) {
        // Taken but never reserved: nobody can use these units, so they go back to the customer.
        await this.deps.allowance.giveBack(customerId, usage.month, 'requests', taken, keyId).catch(() => undefined);
        throw error;
      }
      return true;
    } catch (error) {
      if (error instanceof FencedError) this.fenced();
      else this.deps.logger.warn({ err: error, partition: this.partition }, 'reservation failed');
      throw error;
    }
  }

  /** Writes the unflushed counts of one customer's keys held here (another node is about to read its month). */
  async flushCustomer(customerId: string): Promise<void> {
    const mine = [...this.entries.values()].filter(
      (entry) => entry.record?.customer_id === customerId && entry.usage?.dirty,
    );
    if (mine.length > 0) await this.flush(false, mine);
  }

  /** Writes the unflushed usage of this partition's keys in one bulk write. */
  async flush(release = false, only?: KeyEntry[]): Promise<void> {
    // The periodic flush skips a beat while the previous one is still writing, rather than queueing behind it
    // (and in front of reservations) when the database is slow.
    if (!release && !only) {
      if (this.periodicFlushRunning) return;
      this.periodicFlushRunning = true;
      try {
        await this.flushNow(false);
      } finally {
        this.periodicFlushRunning = false;
      }
      return;
    }
    await this.flushNow(release, only);
  }

  private async flushNow(release: boolean, only?: KeyEntry[]): Promise<void> {
    const now = Date.now();
    const month = monthOf(now);
    const deltas: {
      entry: KeyEntry;
      delta: UsageDelta;
      raw: ReturnType<UsageCounter['drain']>;
      unused: number;
    }[] = [];
    for (const entry of only ?? this.entries.values()) {
      const usage = entry.usage;
      if (!usage || !entry.record) continue;
      const raw = usage.drain();
      if (!raw && !release) continue;
      const delta: UsageDelta = {
        keyId: entry.record.key_id,
        month: usage.month,
        used: raw?.used ?? 0,
        suggestions: raw?.suggestions ?? 0,
        days: raw?.days ?? {},
        ...(release ? { releaseTo: usage.used } : {}),
        ...(entry.record.plan.overage_mode === 'block' ? { againstReservation: true } : {}),
      };
      const unused = release ? Math.max(0, usage.reserved - usage.used) : 0;
      deltas.push({ entry, delta, raw, unused });
      // The ledger's reservation shrinks to what was used: so must ours, or a later admission could pass it.
      if (release) usage.reserved = usage.used;
      if (usage.month !== month && !release) entry.usage = null; // a new month opens on the next request
    }
    // Written in groups: FerretDB 1.24 never answers one update command of 100 or more statements, a reservation
    // waits for one group at most (UsageLedger.flushGroupSize), and a group that fails is put back on its own, so a
    // retry never counts the groups that were written twice.
    const groupSize = this.deps.ledger.flushGroupSize;
    for (let start = 0; start < deltas.length; start += groupSize) {
      const group = deltas.slice(start, start + groupSize);
      try {
        const fencedKeys = await this.serialWrite(() =>
          this.deps.ledger.flush(
            group.map((item) => item.delta),
            this.lease.epoch,
            now,
            this.leaseHeld,
          ),
        );
        if (fencedKeys.length > 0) this.fenced();
        await this.giveBackUnused(group.filter((item) => item.unused > 0 && !fencedKeys.includes(item.delta.keyId)));
      } catch (error) {
        for (const item of group) if (item.raw) item.entry.usage?.restore(item.raw);
        this.deps.logger.error({ err: error, partition: this.partition }, 'usage flush failed; will retry');
      }
    }
  }

  /**
   * The unused part of released reservations goes back to each customer, after the key's own reservation shrank
   * (the other order could hand the same units out twice if the owner died in between; this one can only lose them).
   */
  private async giveBackUnused(items: { entry: KeyEntry; delta: UsageDelta; unused: number }[]): Promise<void> {
    for (const { entry, delta, unused } of items) {
      const customerId = entry.record?.customer_id;
      if (customerId === undefined) continue;
      try {
        await this.deps.allowance.giveBack(customerId, delta.month, 'requests', unused, delta.keyId);
      } catch (error) {
        this.deps.logger.warn({ err: error, partition: this.partition }, 'could not give unused units back');
      }
    }
  }

  private serialWrite<T>(write: () => Promise<T>): Promise<T> {
    const result = this.writes.then(write);
    this.writes = result.catch(() => undefined);
    return result;
  }

  private fenced(): void {
    this.lease.validUntil = 0;
    this.deps.onFenced?.(this.partition);
  }
}
