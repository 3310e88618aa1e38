import { request } from 'node:http';
import { ConfigSchema, type SandboxConfig } from '../config';
import { createSandboxServer, type SandboxServer } from '../server';

/** Ids of the fixed world used across the tests (accounts/sandbox-accounts.ts). */
export const NORTHWIND_BC = '7182654093817356289';
export const NORTHWIND_US = '7291830415526379521';
export const NORTHWIND_UK = '7291830415526379522';
export const PIXEL_PANTRY_BC = '7240912365508837377';
export const PIXEL_PANTRY = '7352219084467503105';

export interface Envelope<T = Record<string, unknown>> {
  code: number;
  message: string;
  request_id: string;
  data: T;
}

export interface PageInfo {
  page: number;
  page_size: number;
  total_number: number;
  total_page: number;
}

export interface ReportRow {
  dimensions: Record<string, string>;
  metrics: Record<string, string>;
}

/** A settable clock, so tests can expire auth codes and step over the QPS window without waiting. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 10, 1, 12)) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Harness {
  url: string;
  sandbox: SandboxServer;
  clock: TestClock;
  config: SandboxConfig;
  /** Mints a token through the control surface. */
  grant(body: { advertiser_ids?: string[]; bc_ids?: string[] }): Promise<string>;
  /** GET on /open_api/v1.3<path>; object and array values are sent as ONE JSON-string parameter each. */
  get<T = Record<string, unknown>>(
    path: string,
    params: Record<string, unknown>,
    token?: string,
    init?: RequestInit,
  ): Promise<Envelope<T>>;
  post<T = Record<string, unknown>>(path: string, body: unknown, token?: string): Promise<Envelope<T>>;
  close(): Promise<void>;
}

export function testConfig(overrides: Partial<Record<keyof SandboxConfig, string>> = {}): SandboxConfig {
  return ConfigSchema.parse({ NODE_ENV: 'test', PORT: '0', SANDBOX_APP_QPS: '0', ...overrides });
}

export function encodeQuery(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    search.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return search.toString();
}

export async function startSandbox(
  overrides: Partial<Record<keyof SandboxConfig, string>> = {},
  clock = new TestClock(),
): Promise<Harness> {
  const config = testConfig(overrides);
  const sandbox = createSandboxServer(config, { now: clock.now });
  const url = await sandbox.listen();
  const headers = (token?: string): Record<string, string> => (token === undefined ? {} : { 'Access-Token': token });
  return {
    url,
    sandbox,
    clock,
    config,
    async grant(body) {
      const response = await fetch(`${url}/_sandbox/grants`, { method: 'POST', body: JSON.stringify(body) });
      const payload = (await response.json()) as { access_token: string };
      return payload.access_token;
    },
    async get(path, params, token, init = {}) {
      const query = encodeQuery(params);
      const response = await fetch(`${url}/open_api/v1.3${path}${query ? `?${query}` : ''}`, {
        ...init,
        headers: { ...headers(token), ...(init.headers as Record<string, string> | undefined) },
      });
      return (await response.json()) as Envelope<never>;
    },
    async post(path, body, token) {
      const response = await fetch(`${url}/open_api/v1.3${path}`, {
        method: 'POST',
        headers: { ...headers(token), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Envelope<never>;
    },
    close: () => sandbox.close(),
  };
}

/** A raw HTTP exchange (fetch cannot send a body with GET; the platform accepts one). */
export function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    // Node sends a GET body unframed unless told its length; real clients (requests, curl) send Content-Length.
    if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
    const req = request(url, { method: options.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
