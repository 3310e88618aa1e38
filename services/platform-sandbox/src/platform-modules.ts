import type { IncomingHttpHeaders } from 'node:http';
import type { ControlReply } from './control/control.handler';

export interface ModuleRequest {
  method: string;
  /** The full path as received, mount prefix included. */
  path: string;
  /** Raw query string without "?", still percent-encoded (signatures are computed over the decoded values). */
  query: string;
  headers: IncomingHttpHeaders;
  /** Raw body text; empty when there was none. */
  body: string;
}

export type ModuleReply =
  /** delayMs: hold this answer back (fault controls); otherwise the sandbox-wide latency applies. */
  | { kind: 'json'; status: number; payload: unknown; delayMs?: number; headers?: Record<string, string> }
  | { kind: 'html'; status: number; html: string }
  | { kind: 'redirect'; location: string };

/** Test/dev routes of a module, mounted at /_sandbox/<prefix>/... next to the shared ones. */
export interface ModuleControl {
  prefix: string;
  /** `path` is the part after /_sandbox/<prefix>, e.g. "/grants". */
  handle(method: string, path: string, query: string, body: string): ControlReply;
}

/**
 * One simulated platform mounted under its own path prefixes (one per platform host). The server records the
 * request in the request log, then hands it over; the module owns routing, authentication and its envelope.
 */
export interface PlatformModule {
  name: string;
  prefixes: readonly string[];
  /** May answer asynchronously (search-ads verifies client assertions with jose, which is async). */
  handle(request: ModuleRequest): ModuleReply | Promise<ModuleReply>;
  control?: ModuleControl;
}

/** The module whose prefix is the path or a parent folder of it. */
export function findModule(modules: readonly PlatformModule[], path: string): PlatformModule | undefined {
  return modules.find((platform) =>
    platform.prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)),
  );
}
