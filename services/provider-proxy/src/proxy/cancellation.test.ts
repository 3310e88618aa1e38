import { Cancellation, CancelledError, NEVER_CANCELLED, type CancelSignal } from './cancellation';

describe('Cancellation', () => {
  it('runs its listeners once, in the order they were added, with the reason set before the first', () => {
    const cancellation = new Cancellation();
    const seen: string[] = [];
    const reason = new Error('deadline');
    cancellation.addEventListener('abort', () => seen.push(`first:${cancellation.reason === reason}`));
    cancellation.addEventListener('abort', () => seen.push(`second:${cancellation.aborted}`));
    cancellation.abort(reason);
    cancellation.abort(new Error('later'));
    expect(seen).toEqual(['first:true', 'second:true']);
    expect(cancellation.reason).toBe(reason);
  });

  it('forgets a removed listener and never calls one added after the abort', () => {
    const cancellation = new Cancellation();
    const removed = jest.fn();
    const kept = jest.fn();
    cancellation.addEventListener('abort', removed);
    cancellation.addEventListener('abort', kept);
    cancellation.removeEventListener('abort', removed);
    cancellation.removeEventListener('abort', () => undefined);
    cancellation.abort();
    const late = jest.fn();
    cancellation.addEventListener('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
  });

  it('gives an AbortError as the reason when none is named, as an AbortController does', () => {
    const cancellation = new Cancellation();
    cancellation.abort();
    expect(cancellation.reason).toBeInstanceOf(CancelledError);
    expect((cancellation.reason as Error).name).toBe('AbortError');
  });

  it('stands in where an AbortSignal is read, and a DOM AbortSignal stands in for it', () => {
    const controller = new AbortController();
    const asSignal: { aborted: boolean } = new Cancellation();
    const asCancelSignal: CancelSignal = controller.signal;
    const heard = jest.fn();
    asCancelSignal.addEventListener('abort', heard, { once: true });
    controller.abort();
    expect(asSignal.aborted).toBe(false);
    expect(asCancelSignal.aborted).toBe(true);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(NEVER_CANCELLED.aborted).toBe(false);
  });
});
