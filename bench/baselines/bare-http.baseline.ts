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

/** The bare node:http calibration server (bare-http.server.cjs) in a process of its own, `extraEnv` added to ours. */
export async function startBareHttp(
  answer?: ReplayedAnswer,
  extraEnv: Record<string, string> = {},
): Promise<{ origin: string; pid: number; stop(): Promise<void> }> {
  const env = { ...process.env, ...extraEnv, ...(answer ? { BARE_HTTP_ANSWER: JSON.stringify(answer) } : {}) };
  const daemon = startDaemon(process.execPath, [join(__dirname, 'bare-http.server.cjs')], { env });
  const port = Number(await firstLineOf(daemon, 10_000));
  return { origin: `http://127.0.0.1:${port}`, pid: daemon.child.pid!, stop: () => daemon.stop() };
}
