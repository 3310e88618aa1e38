import { z } from 'zod';
import type { ControlReply } from '../control/control.handler';
import type { ModuleControl } from '../platform-modules';
import type { ApiAnswerLog } from './api-answer.log';
import type { ApiUserStore } from './auth/api-user.store';
import { PARENT_ORG_ID, SEARCH_ADS_ORGS } from './sandbox-orgs';
import { badRequest, parseControlBody } from '../control/control-reply';

const ApiUserBody = z
  .object({ public_key_pem: z.string().min(1), org_ids: z.array(z.number().int()).min(1).optional() })
  .strict();
const RevokeBody = z.object({ client_id: z.string().min(1) }).strict();

/**
 * Test/dev routes under /_sandbox/search-ads: create an API user from a public key (what the customer does in
 * the platform's UI), delete it, list the orgs, and read the statuses answered since a sequence number.
 */
export function searchAdsControl(store: ApiUserStore, answers: ApiAnswerLog): ModuleControl {
  function register(body: string): ControlReply {
    const parsed = ApiUserBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"public_key_pem": "<PEM>", "org_ids"?: [<number>]}');
    const registration = store.register(parsed.data.public_key_pem, parsed.data.org_ids);
    if (!registration.ok) return badRequest(registration.message);
    const { user } = registration;
    return {
      status: 201,
      payload: { client_id: user.clientId, team_id: user.teamId, key_id: user.keyId, org_ids: user.orgIds },
    };
  }

  function revoke(body: string): ControlReply {
    const parsed = RevokeBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"client_id": "SEARCHADS.<uuid>"}');
    return { status: 200, payload: { revoked: store.revoke(parsed.data.client_id) ? 1 : 0 } };
  }

  function answered(query: string): ControlReply {
    const since = Number(new URLSearchParams(query).get('since') ?? '0');
    if (!Number.isInteger(since) || since < 0) return badRequest('since must be a sequence number');
    return { status: 200, payload: { answers: answers.since(since), last_seq: answers.lastSeq() } };
  }

  return {
    prefix: 'search-ads',
    handle(method, path, query, body) {
      switch (`${method} ${path}`) {
        case 'POST /api-users':
          return register(body);
        case 'POST /api-users/revoke':
          return revoke(body);
        case 'GET /answers':
          return answered(query);
        case 'GET /orgs':
          return { status: 200, payload: { parent_org_id: PARENT_ORG_ID, orgs: SEARCH_ADS_ORGS } };
        default:
          return { status: 404, payload: { error: `no control route ${method} /_sandbox/search-ads${path}` } };
      }
    },
  };
}
