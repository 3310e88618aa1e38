import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { contextSwitchesByName, CpuMeter } from './cpu-meter';

describe('CpuMeter', () => {
  it("counts a child's context switches and the machine's, and reads steal time", async () => {
    // A child that sleeps and wakes 200 times (at least one switch each, whatever else the machine runs), then
    // waits to be stopped: the meter reads a process's switches when it stops, so the child must still be there.
    const child = spawn(
      process.execPath,
      [
        '-e',
        'let n = 0; const t = setInterval(() => {' +
          " if (++n < 200) return; clearInterval(t); console.log('woke 200 times'); }, 2);" +
          ' setTimeout(() => {}, 60_000);',
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const exited = once(child, 'exit');
    const meter = new CpuMeter();
    await once(child.stdout, 'data');
    const usage = meter.stop();
    child.kill();
    await exited;

    expect(usage.contextSwitchesPerSecond).toBeGreaterThan(0);
    expect(usage.stealPercent).toBeGreaterThanOrEqual(0);
    expect(usage.stealPercent).toBeLessThanOrEqual(usage.machinePercent);
    // The child's start-up alone takes more than half a percent of a core over the window, so it is listed.
    const childRow = usage.processes.find((item) => item.pid === child.pid);
    expect(childRow?.contextSwitches).toBeGreaterThanOrEqual(200);
    expect([...contextSwitchesByName(usage).values()].every((switches) => switches >= 0)).toBe(true);
  }, 30_000);
});
