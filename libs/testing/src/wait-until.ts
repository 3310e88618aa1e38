/**
 * Polls `probe` until it returns true. Stops early when `abort` resolves (a child that died) and throws
 * whatever `abort` resolved with; throws `onTimeout()` after `timeoutMs`.
 */
export async function waitUntil(
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; abort?: Promise<Error>; onTimeout: () => Error },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let aborted: Error | undefined;
  void options.abort?.then((error) => (aborted = error));
  for (;;) {
    if (aborted) throw aborted;
    if (await probe()) return;
    if (aborted) throw aborted;
    if (Date.now() >= deadline) throw options.onTimeout();
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
