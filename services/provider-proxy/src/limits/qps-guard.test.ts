import type { CancelSignal } from '../proxy/cancellation';
import { QpsGuard, type Admission } from './qps-guard';

/** The guard's answer as a promise either way, as a caller that always waits sees it. */
const acquire = (guard: QpsGuard, deadline: number, signal?: CancelSignal): Promise<Admission> =>
  Promise.resolve(guard.admit(deadline, signal));

describe('QPS guard', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  const far = () => Date.now() + 60_000;

  it('lets everything through at once when it is off', async () => {
    const guard = new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 });
    const admissions = await Promise.all(Array.from({ length: 100 }, () => acquire(guard, far())));
    expect(admissions.every((admission) => admission.ok)).toBe(true);
  });

  it('answers at once, with no promise, whenever it need not wait: off, a token at hand, busy or aborted', async () => {
    expect(new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }).admit(far())).toEqual({
      ok: true,
      waitedMs: 0,
    });
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 1, maxWaitMs: 2_000 });
    expect(guard.admit(far())).toEqual({ ok: true, waitedMs: 0 });
    const waiting = guard.admit(far());
    expect(waiting).toBeInstanceOf(Promise);
    expect(guard.admit(far())).toEqual({ ok: false, reason: 'busy' });
    const controller = new AbortController();
    controller.abort();
    expect(guard.admit(far(), controller.signal)).toEqual({ ok: false, reason: 'aborted' });
    await jest.advanceTimersByTimeAsync(100);
    expect(await waiting).toEqual({ ok: true, waitedMs: 100 });
    expect(guard.waiting).toBe(0);
  });

  it('spaces requests 1/qps apart in arrival order', async () => {
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 100, maxWaitMs: 2_000 });
    const start = Date.now();
    const times: number[] = [];
    const order: number[] = [];
    const pending = Array.from({ length: 5 }, (_, i) =>
      acquire(guard, far()).then((admission) => {
        expect(admission.ok).toBe(true);
        times.push(Date.now() - start);
        order.push(i);
      }),
    );
    expect(guard.waiting).toBe(4);
    await jest.advanceTimersByTimeAsync(1_000);
    await Promise.all(pending);
    expect(times).toEqual([0, 100, 200, 300, 400]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(guard.waiting).toBe(0);
  });

  it('never admits more than qps requests in any one-second window with burst 1', async () => {
    const guard = new QpsGuard({ qps: 20, burst: 1, maxQueue: 1_000, maxWaitMs: 10_000 });
    const times: number[] = [];
    const pending = Array.from({ length: 100 }, () => acquire(guard, far()).then(() => times.push(Date.now())));
    await jest.advanceTimersByTimeAsync(10_000);
    await Promise.all(pending);
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1_000).length).toBeLessThanOrEqual(20);
  });

  it('keeps the real spacing when a timer fires late (a busy event loop)', async () => {
    // `lateBy` models the event loop being blocked: the second request's timer runs 30 ms after its time,
    // the third's on time. The third must still follow the second by a full interval.
    let lateBy = 0;
    const now = () => Date.now() + lateBy;
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 100, maxWaitMs: 2_000, now });
    const start = now();
    const admittedAt: number[] = [];
    const pending = Array.from({ length: 3 }, () => acquire(guard, far()).then(() => admittedAt.push(now() - start)));
    await jest.advanceTimersByTimeAsync(0);
    lateBy = 30;
    await jest.advanceTimersByTimeAsync(100);
    lateBy = 0;
    await jest.advanceTimersByTimeAsync(300);
    await Promise.all(pending);
    expect(admittedAt).toEqual([0, 130, 230]);
  });

  it('widens the spacing by the window margin', async () => {
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 100, maxWaitMs: 2_000, windowMarginMs: 50 });
    await acquire(guard, far());
    const second = acquire(guard, far());
    await jest.advanceTimersByTimeAsync(105);
    expect(await second).toEqual({ ok: true, waitedMs: 105 });
  });

  it('lets a small burst through after an idle period', async () => {
    const guard = new QpsGuard({ qps: 10, burst: 3, maxQueue: 100, maxWaitMs: 2_000 });
    const first = await Promise.all([acquire(guard, far()), acquire(guard, far()), acquire(guard, far())]);
    expect(first.map((admission) => admission.ok && admission.waitedMs)).toEqual([0, 0, 0]);
    const fourth = acquire(guard, far());
    await jest.advanceTimersByTimeAsync(100);
    expect(await fourth).toEqual({ ok: true, waitedMs: 100 });
  });

  it('answers busy when the wait would exceed the maximum wait', async () => {
    const guard = new QpsGuard({ qps: 2, burst: 1, maxQueue: 100, maxWaitMs: 1_000 });
    const admissions = [acquire(guard, far()), acquire(guard, far()), acquire(guard, far()), acquire(guard, far())];
    await jest.advanceTimersByTimeAsync(2_000);
    expect((await Promise.all(admissions)).map((admission) => admission.ok || admission.reason)).toEqual([
      true,
      true,
      true,
      'busy',
    ]);
  });

  it('answers busy when the wait would pass the request deadline', async () => {
    const guard = new QpsGuard({ qps: 1, burst: 1, maxQueue: 100, maxWaitMs: 10_000 });
    expect((await acquire(guard, far())).ok).toBe(true);
    expect(await acquire(guard, Date.now() + 500)).toEqual({ ok: false, reason: 'busy' });
    const patient = acquire(guard, Date.now() + 1_500);
    await jest.advanceTimersByTimeAsync(1_000);
    expect((await patient).ok).toBe(true);
  });

  it('answers busy when the queue is full', async () => {
    const guard = new QpsGuard({ qps: 1, burst: 1, maxQueue: 2, maxWaitMs: 60_000 });
    const admissions = Array.from({ length: 4 }, () => acquire(guard, far()));
    await jest.advanceTimersByTimeAsync(3_000);
    expect((await Promise.all(admissions)).map((admission) => admission.ok || admission.reason)).toEqual([
      true,
      true,
      true,
      'busy',
    ]);
  });

  it('frees the slot of the last waiter when it is aborted', async () => {
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 100, maxWaitMs: 2_000 });
    await acquire(guard, far());
    const controller = new AbortController();
    const aborted = acquire(guard, far(), controller.signal);
    controller.abort();
    expect(await aborted).toEqual({ ok: false, reason: 'aborted' });
    expect(guard.waiting).toBe(0);
    const next = acquire(guard, far());
    await jest.advanceTimersByTimeAsync(100);
    expect(await next).toEqual({ ok: true, waitedMs: 100 });
  });

  it('refuses an already aborted request without taking a slot', async () => {
    const guard = new QpsGuard({ qps: 10, burst: 1, maxQueue: 100, maxWaitMs: 2_000 });
    expect(await acquire(guard, far(), AbortSignal.abort())).toEqual({ ok: false, reason: 'aborted' });
    expect(await acquire(guard, far())).toEqual({ ok: true, waitedMs: 0 });
  });
});
