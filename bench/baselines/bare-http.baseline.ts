import { join } from 'node:path';
import { firstLineOf, startDaemon } from '../lib/process';

/** The bare node:http calibration server (bare-http.server.cjs) in a process of its own. */
export async function startBareHttp(): Promise<{ origin: string; stop(): Promise<void> }> {
  const daemon = startDaemon(process.execPath, [join(__dirname, 'bare-http.server.cjs')]);
  const port = Number(await firstLineOf(daemon, 10_000));
  return { origin: `http://127.0.0.1:${port}`, stop: () => daemon.stop() };
}
