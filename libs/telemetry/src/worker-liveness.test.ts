import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { watchWorkerLiveness, type WorkerLiveness } from './worker-liveness';

/** A worker as the primary sees it: what it was sent, and whether its channel is open. */
class FakeWorker {
  readonly sent: unknown[] = [];
  connected = true;
  isConnected(): boolean {
    return this.connected;
  }
  send(message: unknown): boolean {
    this.sent.push(message);
    return true;
  }
}

const EVERY_MS = 200;
let now = 0;
let workers: EventEmitter & { workers: Record<string, FakeWorker> };
let events: string[];
let liveness: WorkerLiveness;
const names = new Map<FakeWorker, string>();

const START_MS = 10_000;

function start({ startMs }: { startMs?: number } = { startMs: START_MS }): void {
  workers = Object.assign(new EventEmitter(), { workers: {} as Record<string, FakeWorker> });
  events = [];
  liveness = watchWorkerLiveness(
    {
      everyMs: EVERY_MS,
      lateMs: 300,
      hungMs: 1_000,
      startMs,
      clock: () => now,
      onLate: (worker, late) =>
        events.push(`${names.get(worker as unknown as FakeWorker)} ${late ? 'late' : 'on time'}`),
      onHung: (worker, silentMs) => events.push(`${names.get(worker as unknown as FakeWorker)} hung ${silentMs}`),
    },
    workers as unknown as Parameters<typeof watchWorkerLiveness>[1],
  );
}

function add(name: string): FakeWorker {
  const worker = new FakeWorker();
  names.set(worker, name);
  workers.workers[name] = worker;
  return worker;
}

const answer = (worker: FakeWorker) => workers.emit('message', worker as unknown as Worker, { type: 'gateway:pong' });

/** One check of every worker, `ms` after the last. */
function tick(ms = EVERY_MS): void {
  now += ms;
  jest.advanceTimersByTime(EVERY_MS);
}

beforeEach(() => {
  jest.useFakeTimers();
  now = 0;
  start();
});

afterEach(() => {
  liveness.stop();
  jest.useRealTimers();
});

describe('watchWorkerLiveness', () => {
  it('asks every connected worker each round', () => {
    const a = add('a');
    const b = add('b');
    b.connected = false;
    tick();
    tick();
    expect(a.sent).toEqual([{ type: 'gateway:ping' }, { type: 'gateway:ping' }]);
    expect(b.sent).toEqual([]);
  });

  it('says a silent worker is late, then on time when it answers, then hung once when it stays silent', () => {
    const a = add('a');
    answer(a);
    tick(200);
    expect(events).toEqual([]);
    tick(200);
    expect(events).toEqual(['a late']);
    tick(200);
    expect(events).toEqual(['a late']);
    answer(a);
    expect(events).toEqual(['a late', 'a on time']);
    for (let i = 0; i < 6; i++) tick(200);
    expect(events).toEqual(['a late', 'a on time', 'a late', 'a hung 1000']);
    tick(200);
    answer(a);
    expect(events).toEqual(['a late', 'a on time', 'a late', 'a hung 1000']);
  });

  it('watches a worker only from its first answer, so one still starting is never hung', () => {
    const starting = add('starting');
    for (let i = 0; i < 30; i++) tick(200);
    expect(events).toEqual([]);
    answer(starting);
    for (let i = 0; i < 5; i++) tick(200);
    expect(events).toEqual(['starting late', 'starting hung 1000']);
  });

  it('gives up on a worker that never answers, once, startMs after it was first asked', () => {
    add('stuck');
    tick();
    for (let i = 0; i < START_MS / EVERY_MS - 1; i++) tick();
    expect(events).toEqual([]);
    tick();
    expect(events).toEqual([`stuck hung ${START_MS}`]);
    for (let i = 0; i < 10; i++) tick();
    expect(events).toEqual([`stuck hung ${START_MS}`]);
  });

  it('counts the start-up deadline of a worker forked later from when it is first asked', () => {
    const first = add('first');
    answer(first);
    for (let i = 0; i < 30; i++) {
      answer(first);
      tick();
    }
    add('later');
    answer(first);
    tick();
    for (let i = 0; i < START_MS / EVERY_MS - 1; i++) {
      answer(first);
      tick();
    }
    expect(events).toEqual([]);
    answer(first);
    tick();
    expect(events).toEqual([`later hung ${START_MS}`]);
  });

  it('watches a worker that answers just before its start-up deadline from that answer', () => {
    const slow = add('slow');
    for (let i = 0; i < START_MS / EVERY_MS - 1; i++) tick();
    answer(slow);
    for (let i = 0; i < 20; i++) {
      answer(slow);
      tick();
    }
    expect(events).toEqual([]);
  });

  it('judges no starting worker in a round the primary itself was late for', () => {
    add('stuck');
    tick();
    tick(START_MS + 1_000);
    expect(events).toEqual([]);
    tick();
    expect(events).toEqual([`stuck hung ${START_MS + 1_200}`]);
  });

  it('keeps a worker that never answers when no start-up deadline is given', () => {
    liveness.stop();
    start({});
    add('starting');
    for (let i = 0; i < 100; i++) tick();
    expect(events).toEqual([]);
  });

  it('keeps a worker that answers every round on time', () => {
    const a = add('a');
    for (let i = 0; i < 50; i++) {
      answer(a);
      tick(250);
    }
    expect(events).toEqual([]);
  });

  it('judges nobody in a round that the primary itself was late for, before it reads what came meanwhile', () => {
    const a = add('a');
    answer(a);
    tick(3_000);
    expect(events).toEqual([]);
    answer(a);
    tick(200);
    expect(events).toEqual([]);
    tick(3_000);
    tick(200);
    expect(events).toEqual(['a hung 3400']);
  });

  it('forgets a worker that exited', () => {
    const a = add('a');
    answer(a);
    workers.emit('exit', a as unknown as Worker);
    for (let i = 0; i < 10; i++) tick(200);
    expect(events).toEqual([]);
  });

  it('stops asking once stopped', () => {
    const a = add('a');
    liveness.stop();
    tick();
    expect(a.sent).toEqual([]);
  });
});
