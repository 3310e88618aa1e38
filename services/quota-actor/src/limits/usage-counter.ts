import { dayOf } from './calendar';

/** What the ledger holds for one key and month when an owner opens it. */
export interface UsageSnapshot {
  used: number;
  /** Units this owner may admit without asking the ledger again (block mode); used <= reserved. */
  reserved: number;
  suggestionsUsed: number;
  /** Units of a rotated predecessor counted into this key's document before counts were the customer's. */
  carriedOver: number;
}

/**
 * The month's usage of one key as its owner sees it: the durable part from the ledger plus what this owner
 * admitted since, not yet flushed. In block mode admission is capped by the reservation, which is taken from the
 * customer's allowance, so a crash can only lose reserved-but-unused units (counted against the customer), never
 * admit beyond the customer's quota.
 */
export class UsageCounter {
  used: number;
  reserved: number;
  suggestionsUsed: number;
  readonly carriedOver: number;
  /** Block mode: the customer's allowance was found used up; until then the owner refuses without asking again. */
  exhaustedUntilMs = 0;
  /** Block mode: the reservation of the next chunk under way (one at a time), and when it started. */
  reservation: { outcome: Promise<'granted' | 'used_up' | 'failed'>; startedAtMs: number } | undefined;
  private unflushedUsed = 0;
  private unflushedSuggestions = 0;
  private unflushedDays = new Map<string, number>();

  constructor(
    readonly month: string,
    snapshot: UsageSnapshot,
  ) {
    this.used = snapshot.used;
    this.reserved = snapshot.reserved;
    this.suggestionsUsed = snapshot.suggestionsUsed;
    this.carriedOver = snapshot.carriedOver;
  }

  /** This key's own units of the customer's month. */
  get ownUsed(): number {
    return Math.max(0, this.used - this.carriedOver);
  }

  count(nowMs: number, n = 1): void {
    this.used += n;
    this.unflushedUsed += n;
    const day = dayOf(nowMs);
    this.unflushedDays.set(day, (this.unflushedDays.get(day) ?? 0) + n);
  }

  /**
   * A forwarded request that never reached the platform gives its unit back, also after it was flushed (the next
   * flush then writes a negative delta).
   */
  refund(nowMs: number, n: number): void {
    const back = Math.min(n, this.used);
    if (back <= 0) return;
    this.used -= back;
    this.unflushedUsed -= back;
    const day = dayOf(nowMs);
    this.unflushedDays.set(day, (this.unflushedDays.get(day) ?? 0) - back);
  }

  countSuggestion(): void {
    this.suggestionsUsed += 1;
    this.unflushedSuggestions += 1;
  }

  /** A suggestion the AI failed to give is not counted (find_endpoint gives it back). */
  refundSuggestion(): boolean {
    if (this.suggestionsUsed <= 0) return false;
    this.suggestionsUsed -= 1;
    this.unflushedSuggestions -= 1;
    return true;
  }

  get dirty(): boolean {
    return this.unflushedUsed !== 0 || this.unflushedSuggestions !== 0;
  }

  /** Hands the unflushed deltas to the ledger; restores them if the write fails. */
  drain(): { used: number; suggestions: number; days: Record<string, number> } | null {
    if (!this.dirty) return null;
    const delta = {
      used: this.unflushedUsed,
      suggestions: this.unflushedSuggestions,
      days: Object.fromEntries([...this.unflushedDays].filter(([, n]) => n !== 0)),
    };
    this.unflushedUsed = 0;
    this.unflushedSuggestions = 0;
    this.unflushedDays = new Map();
    return delta;
  }

  restore(delta: { used: number; suggestions: number; days: Record<string, number> }): void {
    this.unflushedUsed += delta.used;
    this.unflushedSuggestions += delta.suggestions;
    for (const [day, n] of Object.entries(delta.days))
      this.unflushedDays.set(day, (this.unflushedDays.get(day) ?? 0) + n);
  }
}
