import type { BatchReplyText } from '@gateway/decisions';

/** At most this many answers per partition, whatever the callers' retry budgets (a bound on memory). */
const MOST_KEPT = 4096;
/** A caller older than retryForMs retries for its decision budget, 4 s by default; kept a little longer. */
const WITHOUT_RETRY_FOR_MS = 10_000;
/** Past the caller's budget: a repeat sent just before the budget ends may still be on its way or queued here. */
const MARGIN_MS = 1_000;

/**
 * The answers an owner gave, by batch id, while their caller may still repeat the batch (its retryForMs): a
 * repeated attempt gets the same verdicts and counts nothing twice. Kept no longer than that: every answer held is
 * live heap, and at 4,096 answers per partition for any age the owner's collector marked and copied tens of
 * megabytes of old verdicts, stalling every decision batch of the node for the length of a pause. An answer is kept
 * as its wire text, one flat string for the collector instead of a reply's tree of objects.
 */
export class AnsweredBatches {
  private readonly answers = new Map<string, BatchReplyText>();
  /**
   * The ids in the order they were remembered, from `head` on, and when each may be forgotten: queues, so forgetting
   * looks at the oldest without an iterator or an object per batch. keepUntil grows with that order, give or take
   * callers' budgets.
   */
  private order: string[] = [];
  private keepUntil: number[] = [];
  private head = 0;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly mostKept = MOST_KEPT,
  ) {}

  get(batchId: string): BatchReplyText | undefined {
    return this.answers.get(batchId);
  }

  /** `retryForMs` counts from when the caller sent the attempt, which is before now: kept at least that long. */
  remember(batchId: string, reply: BatchReplyText, retryForMs: number | undefined): void {
    const now = this.clock();
    this.forgetExpired(now);
    this.answers.set(batchId, reply);
    this.order.push(batchId);
    this.keepUntil.push(now + (retryForMs ?? WITHOUT_RETRY_FOR_MS) + MARGIN_MS);
    while (this.answers.size > this.mostKept) this.answers.delete(this.order[this.head++]!);
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.keepUntil = this.keepUntil.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.answers.size;
  }

  /** From the oldest, while their callers can no longer repeat them; stops at the first still wanted. */
  private forgetExpired(now: number): void {
    while (this.head < this.order.length && this.keepUntil[this.head]! <= now) {
      this.answers.delete(this.order[this.head]!);
      this.head++;
    }
  }
}
