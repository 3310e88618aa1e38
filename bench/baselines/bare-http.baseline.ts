import { join } from 'node:path';
import { firstLineOf, startDaemon } from '../lib/process';

/** An answer for the bare server to give every request: a sampled answer of another server, replayed. */
export interface ReplayedAnswer {
  status: number;
  /** In the order they were sent; Content-Length is the server's own, and node adds Date and Connection. */
  fields: [string, string][];
  body: string;
  /** The request id the sample carries (in its fields and body): each answer gets a fresh one in its place. */
  requestId: string;
}

/** The bare node:http calibration server (bare-http.server.cjs) in a process of its own. */
export async function startBareHttp(answer?: ReplayedAnswer): Promise<{ origin: string; stop(): Promise<void> }> {
  const env = answer ? { ...process.env, BARE_HTTP_ANSWER: JSON.stringify(answer) } : process.env;
  const daemon = startDaemon(process.execPath, [join(__dirname, 'bare-http.server.cjs')], { env });
  const port = Number(await firstLineOf(daemon, 10_000));
  return { origin: `http://127.0.0.1:${port}`, stop: () => daemon.stop() };
}
