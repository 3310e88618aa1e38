import cluster, { type Worker } from 'node:cluster';

const PING = 'gateway:ping';
const PONG = 'gateway:pong';

export interface WorkerLivenessOptions {
  /** How often each worker is asked. */
  everyMs: number;
  /** Silent this long: `onLate(worker, true)`, and `onLate(worker, false)` at its next answer. */
  lateMs: number;
  /** Silent this long: `onHung(worker)`, once. */
  hungMs: number;
  /**
   * A worker that has never answered this long after it was first asked (one that hangs while it starts): `onHung`,
   * once. Long enough for a slow start (its connections made, its code loaded); absent, such a worker is kept.
   */
  startMs?: number;
  onLate(worker: Worker, late: boolean): void;
  onHung(worker: Worker, silentMs: number): void;
  clock?: () => number;
}

export interface WorkerLiveness {
  stop(): void;
}

interface Watched {
  /** When it was first asked; its start-up deadline counts from here. */
  askedAt: number;
  /** Its last answer; undefined while it starts. */
  answeredAt: number | undefined;
  late: boolean;
  hung: boolean;
}

/**
 * The primary's watch on its workers' event loops: a process that is alive but answers nothing (an endless loop, a
 * stopped process) keeps its connections and the ones handed to it, and node:cluster only notices a worker that
 * exits. Each worker is asked every `everyMs` and watched from its first answer, so a worker still starting is not
 * taken for a hung one; a worker that never answers is given up on `startMs` after it was first asked.
 */
export function watchWorkerLiveness(
  options: WorkerLivenessOptions,
  workers: Pick<typeof cluster, 'on' | 'off'> & { workers?: typeof cluster.workers } = cluster,
): WorkerLiveness {
  const clock = options.clock ?? Date.now;
  const watched = new Map<Worker, Watched>();
  const onMessage = (worker: Worker, message: unknown) => {
    if ((message as { type?: unknown } | null)?.type !== PONG) return;
    const at = clock();
    const state = watched.get(worker);
    if (state === undefined) {
      watched.set(worker, { askedAt: at, answeredAt: at, late: false, hung: false });
      return;
    }
    state.answeredAt = at;
    if (state.late && !state.hung) {
      state.late = false;
      options.onLate(worker, false);
    }
  };
  const onExit = (worker: Worker) => watched.delete(worker);
  workers.on('message', onMessage);
  workers.on('exit', onExit);

  let checkedAt = clock();
  const timer = setInterval(() => {
    const now = clock();
    // A primary that was itself held up has not read the answers that came meanwhile: nobody is judged this round.
    const judging = now - checkedAt <= 2 * options.everyMs;
    checkedAt = now;
    for (const worker of Object.values(workers.workers ?? {})) {
      if (worker === undefined || !worker.isConnected()) continue;
      send(worker);
      let state = watched.get(worker);
      if (state === undefined) {
        state = { askedAt: now, answeredAt: undefined, late: false, hung: false };
        watched.set(worker, state);
      }
      if (!judging || state.hung) continue;
      if (state.answeredAt === undefined) {
        const startingMs = now - state.askedAt;
        if (options.startMs !== undefined && startingMs >= options.startMs) {
          state.hung = true;
          options.onHung(worker, startingMs);
        }
        continue;
      }
      const silentMs = now - state.answeredAt;
      if (silentMs >= options.hungMs) {
        state.hung = true;
        options.onHung(worker, silentMs);
      } else if (silentMs >= options.lateMs && !state.late) {
        state.late = true;
        options.onLate(worker, true);
      }
    }
  }, options.everyMs);
  timer.unref();

  return {
    stop() {
      clearInterval(timer);
      workers.off('message', onMessage);
      workers.off('exit', onExit);
    },
  };
}

function send(worker: Worker): void {
  try {
    worker.send({ type: PING }, undefined, undefined, () => undefined);
  } catch {
    // Its channel closed between the check and the send: its exit is on its way.
  }
}

/** A worker's side: answers its primary's liveness questions from its event loop. */
export function answerLivenessChecks(): void {
  process.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type === PING && process.connected) process.send!({ type: PONG });
  });
}
