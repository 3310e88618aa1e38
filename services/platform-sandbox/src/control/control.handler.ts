import type { FaultRoutes } from '../faults/fault.routes';
import type { ModuleControl } from '../platform-modules';
import type { RequestLog } from './request-log';
import { badRequest } from './control-reply';

export const CONTROL_PREFIX = '/_sandbox';

export interface ControlReply {
  status: number;
  payload: unknown;
}

/**
 * Test/dev control surface under /_sandbox (mounted only when NODE_ENV is test or development): the request
 * log, the platform faults and the routes of each platform module (seeding grants, revoking, listing accounts).
 */
export class ControlApi {
  private readonly modules: readonly ModuleControl[];

  constructor(
    private readonly log: RequestLog,
    /** Routes of the platform modules, each under /_sandbox/<its prefix>/ (or /_sandbox itself for prefix ""). */
    modules: readonly ModuleControl[] = [],
    /** /_sandbox/faults (faults/fault.routes.ts). */
    private readonly faults?: FaultRoutes,
  ) {
    // Routes mounted at /_sandbox itself are tried last, so they cannot shadow a module's own mount.
    this.modules = [
      ...modules.filter((routes) => routes.prefix !== ''),
      ...modules.filter((routes) => routes.prefix === ''),
    ];
  }

  handle(method: string, path: string, query: string, body: string): ControlReply {
    const faultReply = this.faults?.handle(method, path.slice(CONTROL_PREFIX.length), body);
    if (faultReply) return faultReply;
    const route = `${method} ${path.slice(CONTROL_PREFIX.length)}`;
    switch (route) {
      case 'GET /requests':
        return this.listRequests(new URLSearchParams(query));
      case 'DELETE /requests':
        return { status: 200, payload: { cleared: this.log.clear(), last_seq: this.log.lastSeq() } };
      default:
        return this.moduleRoute(method, path, query, body);
    }
  }

  private moduleRoute(method: string, path: string, query: string, body: string): ControlReply {
    const rest = path.slice(CONTROL_PREFIX.length);
    for (const routes of this.modules) {
      const root = routes.prefix === '' ? '' : `/${routes.prefix}`;
      if (!rest.startsWith(`${root}/`)) continue;
      const reply = routes.handle(method, rest.slice(root.length), query, body);
      if (reply) return reply;
    }
    return { status: 404, payload: { error: `no control route ${method} ${path}` } };
  }

  private listRequests(query: URLSearchParams): ControlReply {
    const since = Number(query.get('since') ?? '0');
    if (!Number.isInteger(since) || since < 0) return badRequest('since must be a sequence number');
    const prefix = query.get('path_prefix');
    const requests = this.log.since(since).filter((entry) => prefix === null || entry.path.startsWith(prefix));
    return { status: 200, payload: { requests, last_seq: this.log.lastSeq() } };
  }
}
