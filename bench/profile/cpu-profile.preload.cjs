// Preloaded with NODE_OPTIONS=--require (node refuses --cpu-prof in NODE_OPTIONS, and the test harness spawns
// services with fixed arguments). Each SIGUSR2 toggles the inspector's sampling profiler: the first starts it,
// the second writes CPU.<time>.<pid>.0.<n>.cpuprofile (the file name node --cpu-prof uses) into
// BENCH_CPU_PROF_DIR, so the benchmark profiles exactly its measured windows.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  let running = false;
  let windows = 0;
  const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '.').slice(0, 15);
  const stop = () => {
    running = false;
    windows += 1;
    const name = `CPU.${stamp()}.${process.pid}.0.${String(windows).padStart(3, '0')}.cpuprofile`;
    // A session of the main thread answers synchronously, so this also works inside 'exit'.
    session.post('Profiler.stop', (error, result) => {
      if (!error && result) writeFileSync(join(dir, name), JSON.stringify(result.profile));
    });
  };
  process.on('SIGUSR2', () => {
    if (running) return stop();
    running = true;
    session.post('Profiler.start');
  });
  process.on('exit', () => {
    if (running) stop();
  });
}
