import { pingMongo, probeNats } from '@gateway/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * NATS or FerretDB as the chaos run needs them: a fixed loopback port and a fixed data directory, so that a
 * server killed with -9 (or stopped with SIGSTOP) comes back on the same address with the same store.
 */
export class InfraProcess {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;

  private constructor(
    readonly name: string,
    private readonly binary: string,
    private readonly args: string[],
    private readonly ready: () => Promise<boolean>,
    logFile: string,
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
  }

  static nats(binary: string, port: number, storeDir: string, logFile: string): InfraProcess {
    const url = `nats://127.0.0.1:${port}`;
    return new InfraProcess(
      'nats-server',
      binary,
      ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir],
      async () => (await probeNats(url, 500)).state === 'jetstream',
      logFile,
    );
  }

  static ferretdb(binary: string, port: number, dataDir: string, logFile: string): InfraProcess {
    return new InfraProcess(
      'ferretdb',
      binary,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dataDir}/`,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--debug-addr=127.0.0.1:0',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      async () => (await pingMongo(`mongodb://127.0.0.1:${port}/`, 500)).ok,
      logFile,
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server and resolves once it answers (JetStream for NATS, a ping for FerretDB). */
  async start(timeoutMs = 30_000): Promise<void> {
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.pipe(this.log, { end: false });
    child.stderr!.pipe(this.log, { end: false });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.name} exited while starting`);
      if (await this.ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`${this.name} did not answer within ${timeoutMs} ms`);
  }

  /** kill -9: no chance to flush or say goodbye. */
  async kill9(): Promise<void> {
    await this.signal('SIGKILL', true);
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    await this.signal('SIGTERM', true);
    this.log.end();
  }

  private async signal(signal: NodeJS.Signals, waitForExit: boolean): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    if (!waitForExit) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
