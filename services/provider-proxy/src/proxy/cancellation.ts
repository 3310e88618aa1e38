/**
 * What the proxy needs of an abort signal: a flag, a reason and 'abort' listeners. A DOM AbortSignal has this
 * shape, and so does Cancellation.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An abort controller and its signal in one small object, for the per-request signals of the hot path. Node's
 * AbortSignal is an EventTarget: creating one costs about 4 µs and each listener 1-2 µs more, several times per
 * request; this is a flag and an array. Listeners run once, in the order they were added.
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  abort(reason: unknown = new CancelledError()): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners!.splice(index, 1);
  }
}

/** The default reason of Cancellation.abort(), as an AbortController's is an AbortError. */
export class CancelledError extends Error {
  constructor() {
    super('the operation was aborted');
    this.name = 'AbortError';
  }
}

/** A signal that is never aborted. */
export const NEVER_CANCELLED: CancelSignal = new Cancellation();
