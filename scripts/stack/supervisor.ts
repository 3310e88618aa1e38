import type { ChildProcess } from 'node:child_process';

/** What the supervisor needs of a started process; `RunningService` of @gateway/testing has it. */
export interface SupervisableProcess {
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<unknown>;
}

/**
 * When and how often a process that ended on its own is started again, as Kubernetes does for a pod's container
 * (restartPolicy Always, CrashLoopBackOff): any exit the supervisor did not ask for is a restart, the wait doubles
 * per exit in a row, and a process that stayed up long enough starts the count afresh.
 */
export interface RestartPolicy {
  /** Wait before the first restart of a series. */
  initialBackoffMs: number;
  /** The doubling stops here. */
  maxBackoffMs: number;
  /** A process that ran this long before it ended restarts after initialBackoffMs again. */
  stableAfterMs: number;
  /** More restarts than this within 60 s and the supervisor gives the process up (a log line says so). */
  maxRestartsPerMinute: number;
}

export const DEFAULT_RESTART_POLICY: Readonly<RestartPolicy> = {
  initialBackoffMs: 250,
  maxBackoffMs: 10_000,
  stableAfterMs: 30_000,
  maxRestartsPerMinute: 5,
};

export interface ExitRecord {
  /** Date.now() of the exit. */
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How long the process had run. */
  uptimeMs: number;
}

export type SupervisedState = 'running' | 'backoff' | 'starting' | 'given_up' | 'stopped';

const MINUTE_MS = 60_000;

/** One process under supervision: the current instance, its exits and restarts. */
export class SupervisedProcess<T extends SupervisableProcess> {
  current: T | undefined;
  state: SupervisedState = 'starting';
  /** Exits the supervisor did not ask for, oldest first. */
  readonly exits: ExitRecord[] = [];
  /** Successful starts after the first one. */
  restarts = 0;
  private restartTimes: number[] = [];
  private inARow = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: { after: number; resolve: (instance: T) => void; reject: (error: Error) => void }[] = [];

  constructor(
    readonly name: string,
    private readonly launch: () => Promise<T>,
    private readonly policy: RestartPolicy,
    private readonly log: (message: string) => void,
    private readonly onStart?: (instance: T) => void,
  ) {}

  /** The first start; a failure here is the caller's (nothing is retried before the process ever ran). */
  async begin(): Promise<T> {
    const instance = await this.launch();
    this.adopt(instance);
    return instance;
  }

  /** Resolves with the instance of the next restart after `restarts` reached `after` (default: the next one). */
  nextStart(after = this.restarts, timeoutMs = 60_000): Promise<T> {
    if (this.restarts > after && this.current) return Promise.resolve(this.current);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter.resolve !== done);
        reject(new Error(`${this.name} was not restarted within ${timeoutMs} ms (state ${this.state})`));
      }, timeoutMs);
      const done = (instance: T) => {
        clearTimeout(timer);
        resolve(instance);
      };
      this.waiters.push({
        after,
        resolve: done,
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  /** Stops the process for good (no restart): SIGTERM, then the instance's own grace and SIGKILL. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error(`${this.name} was stopped`));
    await this.current?.stop(signal);
  }

  private adopt(instance: T): void {
    this.current = instance;
    this.startedAt = Date.now();
    this.state = 'running';
    this.onStart?.(instance);
    instance.process.once('exit', (code, signal) => this.exited(instance, code, signal));
  }

  private exited(instance: T, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.state === 'stopped' || instance !== this.current) return;
    const now = Date.now();
    const uptimeMs = now - this.startedAt;
    this.exits.push({ at: now, code, signal, uptimeMs });
    if (uptimeMs >= this.policy.stableAfterMs) this.inARow = 0;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.scheduleRestart(`${this.name} (pid ${instance.process.pid}) ${how} after ${(uptimeMs / 1000).toFixed(1)} s`);
  }

  private scheduleRestart(reason: string): void {
    const now = Date.now();
    this.restartTimes = this.restartTimes.filter((at) => now - at < MINUTE_MS);
    if (this.restartTimes.length >= this.policy.maxRestartsPerMinute) {
      this.state = 'given_up';
      this.log(
        `supervisor: ${reason}; ${this.restartTimes.length} restarts in the last minute ` +
          `(limit ${this.policy.maxRestartsPerMinute}): giving up on ${this.name}`,
      );
      for (const waiter of this.waiters.splice(0)) waiter.reject(new Error(`${this.name} was given up`));
      return;
    }
    const backoffMs = Math.min(this.policy.maxBackoffMs, this.policy.initialBackoffMs * 2 ** this.inARow);
    this.inARow++;
    this.restartTimes.push(now);
    this.state = 'backoff';
    this.log(
      `supervisor: ${reason}; restarting in ${backoffMs} ms ` +
        `(${this.restartTimes.length} of ${this.policy.maxRestartsPerMinute} restarts in the last minute)`,
    );
    this.timer = setTimeout(() => void this.restart(), backoffMs);
  }

  private async restart(): Promise<void> {
    if (this.state !== 'backoff') return;
    this.state = 'starting';
    let instance: T;
    try {
      instance = await this.launch();
    } catch (error) {
      if ((this.state as SupervisedState) === 'stopped') return;
      this.exits.push({ at: Date.now(), code: null, signal: null, uptimeMs: 0 });
      this.scheduleRestart(`${this.name} failed to start (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    if ((this.state as SupervisedState) === 'stopped') {
      await instance.stop();
      return;
    }
    this.restarts++;
    this.adopt(instance);
    this.log(`supervisor: ${this.name} is up again (pid ${instance.process.pid}, restart ${this.restarts})`);
    const ready = this.waiters.filter((waiter) => this.restarts > waiter.after);
    this.waiters = this.waiters.filter((waiter) => this.restarts <= waiter.after);
    for (const waiter of ready) waiter.resolve(instance);
  }
}

/**
 * Keeps processes running as Kubernetes keeps a pod's containers (the local stack and `npm run chaos` use it): a
 * process that ends without being asked to is started again with the same launch (same environment and ports),
 * after a backoff, with a log line, and given up beyond a number of restarts per minute.
 */
export class Supervisor {
  private readonly processes: SupervisedProcess<SupervisableProcess>[] = [];
  private readonly policy: RestartPolicy;
  private readonly log: (message: string) => void;

  constructor(options: { policy?: Partial<RestartPolicy>; log?: (message: string) => void } = {}) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.policy };
    this.log = options.log ?? ((message) => console.log(message));
  }

  /** Starts a process once (a failure is thrown) and restarts it from then on. */
  async start<T extends SupervisableProcess>(
    name: string,
    launch: () => Promise<T>,
    onStart?: (instance: T) => void,
  ): Promise<SupervisedProcess<T>> {
    const supervised = new SupervisedProcess<T>(name, launch, this.policy, this.log, onStart);
    await supervised.begin();
    this.processes.push(supervised as unknown as SupervisedProcess<SupervisableProcess>);
    return supervised;
  }

  /** Stops every process, the last started first. */
  async stopAll(): Promise<void> {
    for (const supervised of this.processes.splice(0).reverse()) await supervised.stop();
  }
}
