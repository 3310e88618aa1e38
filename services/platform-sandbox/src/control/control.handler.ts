import { z } from 'zod';
import { findAdvertiser, SANDBOX_BUSINESS_CENTERS } from '../accounts/sandbox-accounts';
import { advertisersOf, businessCentersOf, type GrantStore } from '../grants/grant.store';
import type { FaultRoutes } from '../faults/fault.routes';
import type { ModuleControl } from '../platform-modules';
import type { RequestLog } from './request-log';
import { badRequest, parseControlBody } from './control-reply';

export const CONTROL_PREFIX = '/_sandbox';

export interface ControlReply {
  status: number;
  payload: unknown;
}

const RevokeBody = z.union([
  z.object({ access_token: z.string().min(1) }).strict(),
  z.object({ advertiser_id: z.string().min(1) }).strict(),
]);

const GrantBody = z
  .object({
    app_id: z.string().optional(),
    advertiser_ids: z.array(z.string()).min(1).optional(),
    bc_ids: z.array(z.string()).min(1).optional(),
  })
  .strict()
  .refine((body) => body.advertiser_ids !== undefined || body.bc_ids !== undefined, {
    message: 'give advertiser_ids or bc_ids',
  });

/**
 * Test/dev control surface under /_sandbox (mounted only when NODE_ENV is test or development): the request
 * log, token revocation (the advertiser cancels the grant), direct grants for seeding, the account list and the
 * platform faults.
 */
export class ControlApi {
  constructor(
    private readonly log: RequestLog,
    private readonly grants: GrantStore,
    private readonly defaultAppId: string,
    /** Routes of the platform modules, each under /_sandbox/<its prefix>/. */
    private readonly modules: readonly ModuleControl[] = [],
    /** /_sandbox/faults (faults/fault.routes.ts). */
    private readonly faults?: FaultRoutes,
  ) {}

  handle(method: string, path: string, query: string, body: string): ControlReply {
    const faultReply = this.faults?.handle(method, path.slice(CONTROL_PREFIX.length), body);
    if (faultReply) return faultReply;
    const route = `${method} ${path.slice(CONTROL_PREFIX.length)}`;
    switch (route) {
      case 'GET /requests':
        return this.listRequests(new URLSearchParams(query));
      case 'DELETE /requests':
        return { status: 200, payload: { cleared: this.log.clear(), last_seq: this.log.lastSeq() } };
      case 'POST /tokens/revoke':
        return this.revoke(body);
      case 'POST /grants':
        return this.mint(body);
      case 'GET /accounts':
        return { status: 200, payload: this.accounts() };
      default:
        return this.moduleRoute(method, path, query, body);
    }
  }

  private moduleRoute(method: string, path: string, query: string, body: string): ControlReply {
    const rest = path.slice(CONTROL_PREFIX.length);
    for (const routes of this.modules) {
      const root = `/${routes.prefix}`;
      if (rest.startsWith(`${root}/`)) return routes.handle(method, rest.slice(root.length), query, body);
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

  private revoke(body: string): ControlReply {
    const parsed = RevokeBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"access_token": "..."} or {"advertiser_id": "..."}');
    const revoked =
      'access_token' in parsed.data
        ? this.grants.revokeToken(parsed.data.access_token)
        : this.grants.revokeAdvertiser(parsed.data.advertiser_id);
    return { status: 200, payload: { revoked } };
  }

  private mint(body: string): ControlReply {
    const parsed = GrantBody.safeParse(parseControlBody(body));
    if (!parsed.success) {
      return badRequest('body must be {"advertiser_ids": [...]} or {"bc_ids": [...]}, optionally with "app_id"');
    }
    const appId = parsed.data.app_id ?? this.defaultAppId;
    if (!this.grants.findApp(appId)) return badRequest(`unknown app_id ${appId}`);
    const advertiserIds = parsed.data.advertiser_ids ?? advertisersOf(parsed.data.bc_ids ?? []);
    const unknown = advertiserIds.filter((id) => !findAdvertiser(id));
    if (unknown.length > 0 || advertiserIds.length === 0) {
      return badRequest(
        `unknown advertiser or business center: ${unknown.join(', ') || parsed.data.bc_ids?.join(', ')}`,
      );
    }
    const grant = this.grants.mint(appId, advertiserIds, parsed.data.bc_ids ?? businessCentersOf(advertiserIds));
    return {
      status: 201,
      payload: {
        access_token: grant.access_token,
        app_id: grant.app_id,
        advertiser_ids: grant.advertiser_ids,
        bc_ids: grant.bc_ids,
        scope: grant.scope,
      },
    };
  }

  private accounts(): object {
    return {
      app_id: this.defaultAppId,
      business_centers: SANDBOX_BUSINESS_CENTERS.map((bc) => ({
        bc_id: bc.bc_id,
        name: bc.name,
        advertisers: bc.advertisers.map((advertiser) => ({
          advertiser_id: advertiser.advertiser_id,
          advertiser_name: advertiser.name,
          currency: advertiser.currency,
          timezone: advertiser.timezone,
        })),
      })),
    };
  }
}
