import { z } from 'zod';
import { badRequest, parseControlBody } from '../control/control-reply';
import type { ControlReply } from '../control/control.handler';
import type { ModuleControl } from '../platform-modules';
import { advertisersOf, businessCentersOf, type GrantStore } from './auth/grant.store';
import { findAdvertiser, SANDBOX_BUSINESS_CENTERS } from './sandbox-accounts';

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
 * Test/dev routes of video-ads, mounted at /_sandbox itself (prefix ""): token revocation (the advertiser cancels
 * the grant), direct grants for seeding and the account list.
 */
export function videoAdsControl(grants: GrantStore, defaultAppId: string): ModuleControl {
  function revoke(body: string): ControlReply {
    const parsed = RevokeBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"access_token": "..."} or {"advertiser_id": "..."}');
    const revoked =
      'access_token' in parsed.data
        ? grants.revokeToken(parsed.data.access_token)
        : grants.revokeAdvertiser(parsed.data.advertiser_id);
    return { status: 200, payload: { revoked } };
  }

  function mint(body: string): ControlReply {
    const parsed = GrantBody.safeParse(parseControlBody(body));
    if (!parsed.success) {
      return badRequest('body must be {"advertiser_ids": [...]} or {"bc_ids": [...]}, optionally with "app_id"');
    }
    const appId = parsed.data.app_id ?? defaultAppId;
    if (!grants.findApp(appId)) return badRequest(`unknown app_id ${appId}`);
    const advertiserIds = parsed.data.advertiser_ids ?? advertisersOf(parsed.data.bc_ids ?? []);
    const unknown = advertiserIds.filter((id) => !findAdvertiser(id));
    if (unknown.length > 0 || advertiserIds.length === 0) {
      return badRequest(
        `unknown advertiser or business center: ${unknown.join(', ') || parsed.data.bc_ids?.join(', ')}`,
      );
    }
    const grant = grants.mint(appId, advertiserIds, parsed.data.bc_ids ?? businessCentersOf(advertiserIds));
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

  function accounts(): object {
    return {
      app_id: defaultAppId,
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

  return {
    prefix: '',
    handle(method, path, _query, body) {
      switch (`${method} ${path}`) {
        case 'POST /tokens/revoke':
          return revoke(body);
        case 'POST /grants':
          return mint(body);
        case 'GET /accounts':
          return { status: 200, payload: accounts() };
        default:
          return undefined;
      }
    },
  };
}
