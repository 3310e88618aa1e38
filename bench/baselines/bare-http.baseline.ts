import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startDaemon } from '../lib/process';

/** The bare node:http calibration server (bare-http.server.cjs) in a process of its own. */
export async function startBareHttp(): Promise<{ origin: string; stop(): Promise<void> }> {
  const daemon = startDaemon(process.execPath, [join(__dirname, 'bare-http.server.cjs')]);
  const lines = createInterface({ input: daemon.child.stdout! });
  const timer = setTimeout(() => void daemon.stop(), 10_000);
  try {
    const [line] = (await once(lines, 'line')) as [string];
    return { origin: `http://127.0.0.1:${Number(line)}`, stop: () => daemon.stop() };
  } finally {
    clearTimeout(timer);
  }
}
