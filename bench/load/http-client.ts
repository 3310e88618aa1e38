import { Agent, request } from 'node:http';

export interface Outcome {
  status: number;
  /** The gateway's problem+json code for errors; 'ok' for 2xx; 'socket_error' when no answer came. */
  code: string;
}

/**
 * A keep-alive HTTP client for the accuracy runs, where every answer's status and gateway code is counted (wrk
 * and k6 count only statuses). Each call is bounded by a timeout.
 */
export class GatewayClient {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(origin: string, maxSockets: number) {
    this.url = new URL(origin);
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  get(target: string, apiKey: string, timeoutMs = 10_000): Promise<Outcome> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: target,
          agent: this.agent,
          headers: { 'X-API-Key': apiKey },
          timeout: timeoutMs,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status < 300) {
            res.resume();
            res.on('end', () => resolve({ status, code: 'ok' }));
            res.on('error', () => resolve({ status, code: 'socket_error' }));
            return;
          }
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('error', () => resolve({ status, code: 'socket_error' }));
          res.on('end', () => {
            let code = `http_${status}`;
            try {
              code = (JSON.parse(body) as { code?: string }).code ?? code;
            } catch {
              // not problem+json: keep the status
            }
            resolve({ status, code });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve({ status: 0, code: 'socket_error' }));
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export class OutcomeCounter {
  readonly byCode: Record<string, number> = {};
  total = 0;

  add(outcome: Outcome): void {
    this.total++;
    this.byCode[outcome.code] = (this.byCode[outcome.code] ?? 0) + 1;
  }

  get ok(): number {
    return this.byCode.ok ?? 0;
  }
}
