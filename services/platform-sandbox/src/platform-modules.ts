import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Logger } from '@gateway/telemetry';
import type { SharedConfig } from './config';
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
  /**
   * "" mounts the routes at /_sandbox itself (the fallback module's routes, /_sandbox/grants and the like, are
   * older than per-module mounts and tests and the stack call them there); they are tried after the prefixed ones.
   */
  prefix: string;
  /** `path` is the part after /_sandbox/<prefix>, e.g. "/grants"; undefined: no such route (the surface's 404). */
  handle(method: string, path: string, query: string, body: string): ControlReply | undefined;
}

/** An answer a fault gives in the platform's name. */
export interface FaultReply {
  status: number;
  headers: Record<string, string>;
  payload: object;
}

/** What the fault API (faults/) needs from a module; it names no platform itself. */
export interface ModuleFaultHooks {
  /**
   * Routes that stay reliable unless a fault's path_prefix names them (full paths, each the shortest prefix that
   * names its routes): the grant and token endpoints, so tests can seed connections while the API misbehaves.
   */
  exemptRoots: readonly string[];
  /**
   * The platform's own rate-limit refusal (fault rate_limit), built with the module's envelope so that it is
   * byte-compatible with what the module answers when its real limiter trips (docs/providers.md, each provider's
   * errors).
   */
  rateLimitReply(): FaultReply;
}

/**
 * One simulated platform mounted under its own path prefixes (one per platform host). The server records the
 * request in the request log, then hands it over; the module owns routing, authentication and its envelope.
 * Requests on its prefixes are also what a fault limited to the module (`module: <name>`) hits.
 */
export interface PlatformModule {
  name: string;
  prefixes: readonly string[];
  /** May answer asynchronously (e.g. a token endpoint that verifies a client assertion with an async library). */
  handle(request: ModuleRequest): ModuleReply | Promise<ModuleReply>;
  control?: ModuleControl;
  faults: ModuleFaultHooks;
}

export interface ModuleDependencies {
  /** Milliseconds since the epoch; tests move it. */
  now: () => number;
  logger?: Logger;
}

/** The module's own variables with the shared ones (PORT, SANDBOX_LATENCY_MS, SANDBOX_AUTH_CODE_TTL_MS, ...). */
export type ModuleConfig<Env extends z.ZodRawShape> = SharedConfig & z.infer<z.ZodObject<Env>>;

/**
 * A platform as the registry (platform-modules.registry.ts) lists it: its name (the fault API's `module` value),
 * the zod shape of its own environment (config.ts merges every module's into ConfigSchema) and how to build it.
 */
export interface PlatformModuleDefinition<Name extends string = string, Env extends z.ZodRawShape = z.ZodRawShape> {
  name: Name;
  env: Env;
  create(config: ModuleConfig<Env>, deps: ModuleDependencies): Omit<PlatformModule, 'name'>;
}

/** Keeps the literal name and the env shape in the definition's type, so config.ts can type every variable. */
export function definePlatformModule<const Name extends string, Env extends z.ZodRawShape>(
  definition: PlatformModuleDefinition<Name, Env>,
): PlatformModuleDefinition<Name, Env> {
  return definition;
}

/** The module whose prefix is the path or a parent folder of it. */
export function findModule(modules: readonly PlatformModule[], path: string): PlatformModule | undefined {
  return modules.find((platform) =>
    platform.prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)),
  );
}
