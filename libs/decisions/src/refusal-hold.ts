import type { DecisionRequest, QuotaState, RateState, Reject } from './verdict';

/** A refusal the owner said it would repeat until `until`, for requests of the same scope. */
interface Held {
  until: number;
  verdict: Reject;
  receivedAt: number;
  /** The parts of the request the refusal depends on besides the key (see scopeOf). */
  scope: string;
  /** The last aged rate and quota states handed out: the same objects again while their reset is the same second. */
  agedRate?: RateState;
  agedQuota?: QuotaState;
}

/** The codes an owner decides before anything it could change per request: only these are held. */
const HELD_CODES = new Set(['invalid_api_key', 'rate_limited', 'quota_exceeded']);

/**
 * The refusal path without the owner (issue 17): a key the owner refused with a hold (Reject.holdMs) is refused
 * again by the caller itself until the hold ends, with the same code and headers, instead of a NATS round trip and a
 * wake-up of the actor per request. It only ever refuses, never admits, so exactness is kept:
 *
 * - an unknown key (invalid_api_key) for the owner's negative-cache time, whatever the request;
 * - a key over its rate (rate_limited) until its bucket has a unit again, for requests from the same address that
 *   take a rate unit (the owner checks the address first; a request refused by the rate takes nothing, so refusing it
 *   here changes nothing at the owner);
 * - a block-mode key whose customer used up the month (quota_exceeded), for forwards from the same address to the
 *   same provider and account (the checks the owner makes before the quota), until the owner's hold ends.
 *
 * The hold starts when the request was sent, not when the answer came, so it ends no later than the owner's. A key
 * change (keyChangedSubject) drops the key's holds at once.
 */
export class RefusalHold {
  private readonly held = new Map<string, Held>();

  constructor(private readonly maxKeys = 100_000) {}

  /** The refusal the owner would give this request now, adjusted to now; undefined when nothing is held. */
  refusalFor(request: DecisionRequest, nowMs: number): Reject | undefined {
    // Nothing held is the common case, and a lookup by a fresh key hash costs V8 a search of its string table.
    if (this.held.size === 0) return undefined;
    const held = this.held.get(request.keyHash);
    if (!held) return undefined;
    if (nowMs >= held.until) {
      this.held.delete(request.keyHash);
      return undefined;
    }
    if (!appliesTo(held, request)) return undefined;
    return aged(held, nowMs);
  }

  /** Keeps the refusal of a request sent at `sentAtMs` while the owner said it holds. */
  remember(request: DecisionRequest, verdict: Reject, sentAtMs: number, nowMs: number): void {
    if (!verdict.holdMs || verdict.holdMs <= 0 || !HELD_CODES.has(verdict.code)) return;
    if (verdict.code === 'rate_limited' && request.countRate === false) return;
    const until = sentAtMs + verdict.holdMs;
    if (until <= nowMs) return;
    if (this.held.size >= this.maxKeys) this.dropExpired(nowMs);
    if (this.held.size >= this.maxKeys) return;
    this.held.set(request.keyHash, { until, verdict, receivedAt: nowMs, scope: scopeOf(verdict, request) });
  }

  /** The key changed: its refusals may no longer hold. */
  forget(keyHash: string): void {
    this.held.delete(keyHash);
  }

  get size(): number {
    return this.held.size;
  }

  private dropExpired(nowMs: number): void {
    for (const [keyHash, held] of this.held) if (held.until <= nowMs) this.held.delete(keyHash);
  }
}

function scopeOf(verdict: Reject, request: DecisionRequest): string {
  switch (verdict.code) {
    case 'invalid_api_key':
      return '';
    case 'rate_limited':
      return request.ip;
    default:
      return `${request.ip}\n${request.provider ?? ''}\n${request.accountId ?? ''}`;
  }
}

function appliesTo(held: Held, request: DecisionRequest): boolean {
  switch (held.verdict.code) {
    case 'invalid_api_key':
      return true;
    case 'rate_limited':
      return request.countRate !== false && held.scope === request.ip;
    default:
      return (
        request.intent === 'forward' &&
        request.pathAllowed === true &&
        held.scope === `${request.ip}\n${request.provider ?? ''}\n${request.accountId ?? ''}`
      );
  }
}

/** The held verdict as the owner would state it now: the waits shortened by the time since it was given. */
function aged(held: Held, nowMs: number): Reject {
  const verdict = held.verdict;
  const elapsedSeconds = (nowMs - held.receivedAt) / 1000;
  const shorten = (seconds: number) => Math.max(0, Math.ceil(seconds - elapsedSeconds));
  const refusal: Reject = Object.assign({}, verdict, { holdMs: held.until - nowMs });
  if (verdict.retryAfterSeconds !== undefined) {
    refusal.retryAfterSeconds =
      verdict.code === 'rate_limited'
        ? Math.max(1, Math.ceil((held.until - nowMs) / 1000))
        : Math.max(1, shorten(verdict.retryAfterSeconds));
  }
  if (verdict.rate) {
    const resetSeconds = shorten(verdict.rate.resetSeconds);
    if (held.agedRate?.resetSeconds !== resetSeconds) held.agedRate = Object.assign({}, verdict.rate, { resetSeconds });
    refusal.rate = held.agedRate;
  }
  if (verdict.quota) {
    const resetSeconds = shorten(verdict.quota.resetSeconds);
    if (held.agedQuota?.resetSeconds !== resetSeconds)
      held.agedQuota = Object.assign({}, verdict.quota, { resetSeconds });
    refusal.quota = held.agedQuota;
  }
  return refusal;
}
