import { spawn, type ChildProcess } from 'node:child_process';
import { Supervisor, type SupervisableProcess } from './supervisor';

/** A node child running `script`; stop() signals it and waits for its exit. */
function child(script: string): SupervisableProcess {
  const process_ = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return {
    process: process_,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => exitOf(process_, signal),
  };
}

function exitOf(process_: ChildProcess, signal?: NodeJS.Signals): Promise<void> {
  if (process_.exitCode !== null || process_.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    process_.once('exit', () => resolve());
    if (signal) process_.kill(signal);
  });
}

const fast = { initialBackoffMs: 20, maxBackoffMs: 100, stableAfterMs: 5_000 };

describe('supervisor', () => {
  let supervisor: Supervisor;
  let lines: string[];

  beforeEach(() => {
    lines = [];
    supervisor = new Supervisor({ policy: { ...fast, maxRestartsPerMinute: 5 }, log: (line) => lines.push(line) });
  });

  afterEach(async () => {
    await supervisor.stopAll();
  });

  it('restarts a child that exits, with a log line naming the exit', async () => {
    let launches = 0;
    const supervised = await supervisor.start('crasher', async () => {
      launches++;
      // The first instance dies on its own; the second one stays up.
      return child(launches === 1 ? 'setTimeout(() => process.exit(3), 50)' : 'setInterval(() => {}, 1000)');
    });
    const first = supervised.current!.process.pid;

    const restarted = await supervised.nextStart(0, 5_000);

    expect(restarted.process.pid).not.toBe(first);
    expect(supervised.restarts).toBe(1);
    expect(supervised.state).toBe('running');
    expect(supervised.exits).toEqual([expect.objectContaining({ code: 3, signal: null })]);
    expect(lines.some((line) => /crasher \(pid \d+\) exited with code 3 .* restarting in 20 ms/.test(line))).toBe(true);
  });

  it('restarts a child killed by a signal (kill -9) as well', async () => {
    const supervised = await supervisor.start('victim', async () => child('setInterval(() => {}, 1000)'));
    supervised.current!.process.kill('SIGKILL');

    await supervised.nextStart(0, 5_000);

    expect(supervised.exits[0]).toEqual(expect.objectContaining({ signal: 'SIGKILL' }));
  });

  it('doubles the wait per exit in a row and gives up beyond the restarts allowed per minute', async () => {
    supervisor = new Supervisor({ policy: { ...fast, maxRestartsPerMinute: 3 }, log: (line) => lines.push(line) });
    const supervised = await supervisor.start('looper', async () => child('process.exit(1)'));

    const deadline = Date.now() + 5_000;
    while (supervised.state !== 'given_up' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    expect(supervised.state).toBe('given_up');
    expect(supervised.restarts).toBe(3);
    const waits = lines.flatMap((line) => /restarting in (\d+) ms/.exec(line)?.[1] ?? []).map(Number);
    expect(waits).toEqual([20, 40, 80]);
    expect(lines.at(-1)).toMatch(/giving up on looper/);
  });

  it('does not restart a child it was asked to stop', async () => {
    const supervised = await supervisor.start('calm', async () => child('setInterval(() => {}, 1000)'));

    await supervised.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(supervised.state).toBe('stopped');
    expect(supervised.restarts).toBe(0);
    expect(lines).toEqual([]);
  });
});
