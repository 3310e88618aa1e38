import type { BatchReplyText } from '@gateway/decisions';

/** At most this many answers per partition, whatever the callers' retry budgets (a bound on memory). */
const MOST_KEPT = 4096;
/** Their bytes, unless one answer alone is larger (a batch is bounded by NATS's max_payload, 1 MB by default). */
const MOST_BYTES = 4 * 1024 * 1024;
/** Room for a quiet partition; both double as its callers need, up to the bounds above. */
const FIRST_SLOTS = 64;
const FIRST_BYTES = 16 * 1024;
/** A caller older than retryForMs retries for its decision budget, 4 s by default; kept a little longer. */
const WITHOUT_RETRY_FOR_MS = 10_000;
/** Past the caller's budget: a repeat sent just before the budget ends may still be on its way or queued here. */
const MARGIN_MS = 1_000;
/** Counters are looked up modulo this, so the keys stay small integers; the slot holds the whole counter. */
const COUNTER_KEYS = 2 ** 30;
/** Base-36 digits of a counter that stays an exact integer (36^10 < 2^53). */
const MOST_COUNTER_DIGITS = 10;

/** One caller's answers still kept: counter (modulo COUNTER_KEYS) -> slot. */
interface CallerAnswers {
  readonly caller: string;
  readonly slots: Map<number, number>;
  /** The map it is in: ids that end in a counter, or ids kept whole. */
  readonly registry: Map<string, CallerAnswers>;
}

/**
 * The answers an owner gave, by batch id, while their caller may still repeat the batch (its retryForMs): a
 * repeated attempt gets the same verdicts and counts nothing twice. Kept no longer than that, and kept off the
 * collector's heap. A caller names its batches `<instance>.<counter in base 36>` (DecisionClient), so an answer is
 * found by its caller and counter, both small, and its wire text lies in one buffer that the answers share as a ring.
 * Kept as strings, every answer was a live heap object until it expired: the owner's old space grew by a third
 * under load and its collector marked it (docs/benchmarks.md, "The tail at 200 req/s"). Here the heap holds a few
 * typed arrays and one small integer map per caller, whatever the load.
 */
export class AnsweredBatches {
  private readonly byCounter = new Map<string, CallerAnswers>();
  /** Ids that do not end in a canonical counter, each its own caller with counter 0 (never from DecisionClient). */
  private readonly byWholeId = new Map<string, CallerAnswers>();
  private parsedId: string | undefined;
  private parsedCaller = '';
  private parsedCounter = 0;
  private parsedRegistry = this.byCounter;

  /** The answers as a queue of slots, oldest at `first`; a slot's text is bytes[start, start + length). */
  private slotCaller: (CallerAnswers | undefined)[];
  private slotCounter: Float64Array;
  private slotKeepUntil: Float64Array;
  private slotStart: Int32Array;
  private slotLength: Int32Array;
  private first = 0;
  private count = 0;

  /** Texts are written in order; the live ones run from the oldest slot's start to `next`, wrapping at the end. */
  private bytes: Buffer;
  private next = 0;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly mostKept = MOST_KEPT,
    private readonly mostBytes = MOST_BYTES,
  ) {
    const slots = Math.min(FIRST_SLOTS, mostKept);
    this.slotCaller = new Array<CallerAnswers | undefined>(slots).fill(undefined);
    this.slotCounter = new Float64Array(slots);
    this.slotKeepUntil = new Float64Array(slots);
    this.slotStart = new Int32Array(slots);
    this.slotLength = new Int32Array(slots);
    this.bytes = Buffer.allocUnsafe(Math.min(FIRST_BYTES, mostBytes));
  }

  get(batchId: string): BatchReplyText | undefined {
    this.parse(batchId);
    const counter = this.parsedCounter;
    const slot = this.parsedRegistry.get(this.parsedCaller)?.slots.get(counter % COUNTER_KEYS);
    if (slot === undefined || this.slotCounter[slot] !== counter) return undefined;
    const start = this.slotStart[slot]!;
    return this.bytes.toString('utf8', start, start + this.slotLength[slot]!) as BatchReplyText;
  }

  /** `retryForMs` counts from when the caller sent the attempt, which is before now: kept at least that long. */
  remember(batchId: string, reply: BatchReplyText, retryForMs: number | undefined): void {
    const now = this.clock();
    this.forgetExpired(now);
    const length = Buffer.byteLength(reply, 'utf8');
    while (this.count >= this.slotCapacity() && !this.growSlots()) this.forgetOldest();
    let start = this.placeFor(length);
    while (start < 0) {
      if (!this.growBytes(length)) this.forgetOldest();
      start = this.placeFor(length);
    }
    this.bytes.write(reply, start, length, 'utf8');
    this.next = start + length;

    this.parse(batchId);
    const { parsedCaller: caller, parsedCounter: counter, parsedRegistry: registry } = this;
    let answers = registry.get(caller);
    if (!answers) {
      answers = { caller, slots: new Map(), registry };
      registry.set(caller, answers);
    }
    const slot = (this.first + this.count) % this.slotCapacity();
    this.count++;
    this.slotCaller[slot] = answers;
    this.slotCounter[slot] = counter;
    this.slotKeepUntil[slot] = now + (retryForMs ?? WITHOUT_RETRY_FOR_MS) + MARGIN_MS;
    this.slotStart[slot] = start;
    this.slotLength[slot] = length;
    answers.slots.set(counter % COUNTER_KEYS, slot);
  }

  get size(): number {
    return this.count;
  }

  /** Callers with an answer kept: each holds a small map, let go with its last answer (edges restart). */
  get callers(): number {
    return this.byCounter.size + this.byWholeId.size;
  }

  private slotCapacity(): number {
    return this.slotCounter.length;
  }

  /**
   * The batch's caller and counter, into the parsed* fields; kept for the next call with the same id (an owner asks
   * for a batch's answer, then remembers the one it gives). Only a canonical base-36 counter (no sign, no leading zero,
   * lower case) names the batch, so two ids never share a caller and counter; any other id is a caller of its own.
   */
  private parse(batchId: string): void {
    if (batchId === this.parsedId) return;
    const dot = batchId.lastIndexOf('.');
    const counter = dot < 0 ? -1 : canonicalCounter(batchId, dot + 1);
    this.parsedId = batchId;
    this.parsedRegistry = counter < 0 ? this.byWholeId : this.byCounter;
    this.parsedCaller = counter < 0 ? batchId : batchId.slice(0, dot);
    this.parsedCounter = counter < 0 ? 0 : counter;
  }

  /** Where a text of `length` bytes fits without touching a live one, or -1. */
  private placeFor(length: number): number {
    const capacity = this.bytes.length;
    if (this.count === 0) return length <= capacity ? 0 : -1;
    const oldest = this.slotStart[this.first]!;
    if (this.next >= oldest) {
      if (this.next + length <= capacity) return this.next;
      return length < oldest ? 0 : -1;
    }
    // Wrapped: the free bytes lie between the newest and the oldest. Never fill them exactly, or next === oldest
    // would read as not wrapped.
    return this.next + length < oldest ? this.next : -1;
  }

  /** From the oldest, while their callers can no longer repeat them; stops at the first still wanted. */
  private forgetExpired(now: number): void {
    while (this.count > 0 && this.slotKeepUntil[this.first]! <= now) this.forgetOldest();
  }

  private forgetOldest(): void {
    const slot = this.first;
    const answers = this.slotCaller[slot]!;
    const key = this.slotCounter[slot]! % COUNTER_KEYS;
    // A later answer with the same key (a batch answered twice) took the key over: that one stays.
    if (answers.slots.get(key) === slot) {
      answers.slots.delete(key);
      if (answers.slots.size === 0) answers.registry.delete(answers.caller);
    }
    this.slotCaller[slot] = undefined;
    this.first = (slot + 1) % this.slotCapacity();
    this.count--;
  }

  /** Twice the slots, the answers moved to the front in their order; false at the bound. */
  private growSlots(): boolean {
    const capacity = this.slotCapacity();
    if (capacity >= this.mostKept) return false;
    const grown = Math.min(capacity * 2, this.mostKept);
    const caller = new Array<CallerAnswers | undefined>(grown).fill(undefined);
    const counter = new Float64Array(grown);
    const keepUntil = new Float64Array(grown);
    const start = new Int32Array(grown);
    const length = new Int32Array(grown);
    for (let index = 0; index < this.count; index++) {
      const slot = (this.first + index) % capacity;
      const answers = this.slotCaller[slot]!;
      const key = this.slotCounter[slot]! % COUNTER_KEYS;
      if (answers.slots.get(key) === slot) answers.slots.set(key, index);
      caller[index] = answers;
      counter[index] = this.slotCounter[slot]!;
      keepUntil[index] = this.slotKeepUntil[slot]!;
      start[index] = this.slotStart[slot]!;
      length[index] = this.slotLength[slot]!;
    }
    this.slotCaller = caller;
    this.slotCounter = counter;
    this.slotKeepUntil = keepUntil;
    this.slotStart = start;
    this.slotLength = length;
    this.first = 0;
    return true;
  }

  /**
   * Twice the bytes (more for one text larger than that), the live texts copied to the front in their order; false
   * at the bound while older answers can make room.
   */
  private growBytes(length: number): boolean {
    const capacity = this.bytes.length;
    if (capacity >= this.mostBytes && this.count > 0) return false;
    let grown = capacity * 2;
    while (grown < length) grown *= 2;
    const bytes = Buffer.allocUnsafe(grown);
    let next = 0;
    for (let index = 0; index < this.count; index++) {
      const slot = (this.first + index) % this.slotCapacity();
      const start = this.slotStart[slot]!;
      next += this.bytes.copy(bytes, next, start, start + this.slotLength[slot]!);
      this.slotStart[slot] = next - this.slotLength[slot]!;
    }
    this.bytes = bytes;
    this.next = next;
    return true;
  }
}

/** The counter that `batchId` ends in from `from` on, or -1 if those characters are not a canonical one. */
function canonicalCounter(batchId: string, from: number): number {
  const digits = batchId.length - from;
  if (digits < 1 || digits > MOST_COUNTER_DIGITS) return -1;
  if (digits > 1 && batchId.charCodeAt(from) === 48) return -1;
  let counter = 0;
  for (let index = from; index < batchId.length; index++) {
    const code = batchId.charCodeAt(index);
    let digit: number;
    if (code >= 48 && code <= 57) digit = code - 48;
    else if (code >= 97 && code <= 122) digit = code - 87;
    else return -1;
    counter = counter * 36 + digit;
  }
  return counter;
}
