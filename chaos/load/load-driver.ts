import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** One answer (or its absence) as the load saw it. */
export interface Outcome {
  /** ms since the run's start when the request was first sent. */
  sentAt: number;
  latencyMs: number;
  /** 0: no HTTP answer (socket error or client deadline). */
  status: number;
  /** 'ok' for 2xx, the problem+json (REST) or tool error (MCP) code, 'socket_error', 'client_timeout'. */
  code: string;
  channel: 'rest' | 'mcp';
  key: string;
  /** REST refusals carry problem+json; 503s must also carry Retry-After. */
  problemJson: boolean;
  retryAfter: boolean;
  /** Attempts that found no listener (ECONNREFUSED) before this one was answered. */
  refused: number;
  /**
   * Sent again because a reused keep-alive socket was reset before any byte came back (Node's advice), at most
   * MAX_RESENDS times: a server closing its idle sockets can reset the next pooled one the retry takes as well.
   */
  resent: boolean;
}

export interface LoadKey {
  label: string;
  secret: string;
  channel: 'rest' | 'mcp';
}

export interface LoadOptions {
  /** REST edges; a refused connection moves on to the next one, as a load balancer would. */
  restOrigins: string[];
  /** The MCP endpoint URL. */
  mcpUrl: string;
  keys: LoadKey[];
  /** Requests per second over all keys, open loop (sent on schedule whatever the answers do). */
  rate: number;
  durationMs: number;
  /** The client's own deadline per request; the gateway's deadlines are shorter. */
  deadlineMs: number;
  restPath: string;
  mcpArguments: Record<string, unknown>;
}

const REFUSED_RETRY_MS = 100;
/** A reset of a reused socket is a request the server never read: sent again on another socket, a few times at most. */
const MAX_RESENDS = 3;

/**
 * A bounded open-loop load on loopback over REST and MCP, round robin over keys. Every answer is kept with its
 * send time so scenarios can split them by phase (before, during, after a fault).
 */
export class LoadDriver {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private nextOrigin = 0;
  /** Date.now() when run() was called (set before its first await, so a scenario can time its faults). */
  startedAt = 0;
  private stopRequested = false;

  constructor(private readonly options: LoadOptions) {}

  async run(onOutcome?: (outcome: Outcome) => void): Promise<{ outcomes: Outcome[]; startedAt: number }> {
    const { rate, durationMs, keys } = this.options;
    const outcomes: Outcome[] = [];
    const startedAt = (this.startedAt = Date.now());
    const total = Math.floor((rate * durationMs) / 1000);
    const pending: Promise<void>[] = [];
    let sent = 0;
    this.stopRequested = false;
    while (sent < total && !this.stopRequested) {
      const due = Math.min(total, Math.floor(((Date.now() - startedAt) * rate) / 1000) + 1);
      for (; sent < due; sent++) {
        const key = keys[sent % keys.length]!;
        pending.push(
          this.send(key, startedAt).then((outcome) => {
            outcomes.push(outcome);
            onOutcome?.(outcome);
          }),
        );
      }
      await sleep(Math.max(1, Math.min(20, 1000 / rate)));
    }
    await Promise.all(pending);
    return { outcomes, startedAt };
  }

  /** Ends the load early: nothing more is sent, answers still awaited are collected. */
  stop(): void {
    this.stopRequested = true;
  }

  close(): void {
    this.agent.destroy();
  }

  private async send(key: LoadKey, runStart: number): Promise<Outcome> {
    const sentAt = Date.now();
    const giveUpAt = sentAt + this.options.deadlineMs;
    let refused = 0;
    let resends = 0;
    for (;;) {
      const origin =
        key.channel === 'rest'
          ? this.options.restOrigins[this.nextOrigin++ % this.options.restOrigins.length]!
          : this.options.mcpUrl;
      const attempt = await this.attempt(key, origin, giveUpAt - Date.now());
      if (attempt.kind === 'refused' && Date.now() < giveUpAt - REFUSED_RETRY_MS) {
        refused++;
        // Another edge at once; the same single MCP server after a pause.
        if (key.channel === 'mcp' || refused % this.options.restOrigins.length === 0) await sleep(REFUSED_RETRY_MS);
        continue;
      }
      if (attempt.kind === 'reset_reused' && resends < MAX_RESENDS) {
        resends++;
        continue;
      }
      const answered = attempt.kind === 'answer' ? attempt : undefined;
      return {
        sentAt: sentAt - runStart,
        latencyMs: Date.now() - sentAt,
        status: answered?.status ?? 0,
        code: answered?.code ?? (attempt.kind === 'timeout' ? 'client_timeout' : 'socket_error'),
        channel: key.channel,
        key: key.label,
        problemJson: answered?.problemJson ?? false,
        retryAfter: answered?.retryAfter ?? false,
        refused,
        resent: resends > 0,
      };
    }
  }

  private attempt(
    key: LoadKey,
    origin: string,
    timeoutMs: number,
  ): Promise<
    | { kind: 'answer'; status: number; code: string; problemJson: boolean; retryAfter: boolean }
    | { kind: 'refused' | 'reset_reused' | 'socket_error' | 'timeout' }
  > {
    const url = new URL(key.channel === 'rest' ? this.options.restPath : '', origin);
    const body =
      key.channel === 'mcp'
        ? JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'call_endpoint', arguments: this.options.mcpArguments },
          })
        : undefined;
    const headers: Record<string, string> =
      key.channel === 'rest'
        ? { 'X-API-Key': key.secret }
        : {
            Authorization: `Bearer ${key.secret}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          };
    return new Promise((resolve) => {
      let settled = false;
      const done = (value: Parameters<typeof resolve>[0]) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      };
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: body ? 'POST' : 'GET',
          agent: this.agent,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', () => done({ kind: 'socket_error' }));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            done({ kind: 'answer', status, ...classify(key.channel, status, res.headers, text) });
          });
        },
      );
      const timer = setTimeout(
        () => {
          req.destroy();
          done({ kind: 'timeout' });
        },
        Math.max(1, timeoutMs),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') return done({ kind: 'refused' });
        if (req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          return done({ kind: 'reset_reused' });
        }
        done({ kind: 'socket_error' });
      });
      req.end(body);
    });
  }
}

function classify(
  channel: 'rest' | 'mcp',
  status: number,
  headers: IncomingHttpHeaders,
  text: string,
): { code: string; problemJson: boolean; retryAfter: boolean } {
  const problemJson = (headers['content-type'] ?? '').startsWith('application/problem+json');
  const retryAfter = headers['retry-after'] !== undefined;
  if (channel === 'rest' || status !== 200) {
    if (channel === 'rest' && status >= 200 && status < 300) return { code: 'ok', problemJson, retryAfter };
    try {
      return { code: (JSON.parse(text) as { code?: string }).code ?? `http_${status}`, problemJson, retryAfter };
    } catch {
      return { code: `http_${status}`, problemJson, retryAfter };
    }
  }
  // JSON or one SSE event with the JSON-RPC answer.
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  try {
    const message = JSON.parse(json) as {
      result?: { isError?: boolean; content?: { text?: string }[] };
      error?: { code: number };
    };
    if (message.error) return { code: `jsonrpc_${message.error.code}`, problemJson, retryAfter };
    if (message.result?.isError) {
      const first = message.result.content?.[0]?.text ?? '';
      return { code: `tool:${/^([a-z_]+):/.exec(first)?.[1] ?? 'unknown'}`, problemJson, retryAfter };
    }
    return { code: 'ok', problemJson, retryAfter };
  } catch {
    return { code: 'mcp_unparsable', problemJson, retryAfter };
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
