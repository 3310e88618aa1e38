import type { IncomingHttpHeaders } from 'node:http';
import type { ApiUserStore } from './auth/api-user.store';
import { rateLimitHeader, type UserHourLimiter } from './auth/user-hour.limiter';
import type { SearchAdsHandler, SearchAdsServices } from './call-context';
import { apiError, envelope, isResult, notFound, SearchAdsCode, type SearchAdsResult } from './envelope';
import { campaignReport } from './handlers/report.handler';
import {
  getAcls,
  getAdGroup,
  getCampaign,
  getMe,
  listAdGroups,
  listCampaigns,
  listTargetingKeywords,
} from './handlers/read.handler';
import {
  createAdGroup,
  createCampaign,
  createTargetingKeywords,
  deleteCampaign,
  updateAdGroup,
  updateCampaign,
} from './handlers/write.handler';
import { findOrg, type SearchAdsOrg } from './sandbox-orgs';

/** Mount of the API host (api.searchads.apple.com) in the sandbox. */
export const SEARCH_ADS_PREFIX = '/search-ads';
const API_ROOT = '/api/v5/';

interface Route {
  /** Path after /api/v5/, `{name}` segments are numeric ids. */
  pattern: string[];
  methods: Partial<Record<string, SearchAdsHandler>>;
  /** /acls and /me are the only calls without X-AP-Context. */
  context: boolean;
}

const route = (pattern: string, methods: Route['methods'], context = true): Route => ({
  pattern: pattern.split('/'),
  methods,
  context,
});

const ROUTES: readonly Route[] = [
  route('acls', { GET: getAcls }, false),
  route('me', { GET: getMe }, false),
  route('campaigns', { GET: listCampaigns, POST: createCampaign }),
  route('campaigns/{campaignId}', { GET: getCampaign, PUT: updateCampaign, DELETE: deleteCampaign }),
  route('campaigns/{campaignId}/adgroups', { GET: listAdGroups, POST: createAdGroup }),
  route('campaigns/{campaignId}/adgroups/{adgroupId}', { GET: getAdGroup, PUT: updateAdGroup }),
  route('campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords', { GET: listTargetingKeywords }),
  route('campaigns/{campaignId}/adgroups/{adgroupId}/targetingkeywords/bulk', { POST: createTargetingKeywords }),
  route('reports/campaigns', { POST: campaignReport }),
];

function matchRoute(path: string): { route: Route; ids: Record<string, number> } | undefined {
  if (!path.startsWith(API_ROOT)) return undefined;
  const segments = path.slice(API_ROOT.length).split('/');
  for (const candidate of ROUTES) {
    if (candidate.pattern.length !== segments.length) continue;
    const ids: Record<string, number> = {};
    const fits = candidate.pattern.every((part, index) => {
      const segment = segments[index] as string;
      if (!part.startsWith('{')) return part === segment;
      if (!/^\d{1,16}$/.test(segment)) return false;
      ids[part.slice(1, -1)] = Number(segment);
      return true;
    });
    if (fits) return { route: candidate, ids };
  }
  return undefined;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface ApiAnswer {
  status: number;
  payload: object;
  headers: Record<string, string>;
}

/**
 * The simulated Campaign Management API v5. Order of checks: route (404), method (405), bearer token (401),
 * the user's hourly budget (429), X-AP-Context and the org's access (403), JSON body (400), then the handler.
 */
export class SearchAdsApi {
  constructor(
    private readonly users: ApiUserStore,
    private readonly services: SearchAdsServices,
    private readonly limiter: UserHourLimiter,
  ) {}

  handle(method: string, path: string, query: string, headers: IncomingHttpHeaders, body: string): ApiAnswer {
    const answerHeaders: Record<string, string> = {};
    const answer = (result: SearchAdsResult): ApiAnswer => ({
      status: result.status,
      payload: envelope(result),
      headers: answerHeaders,
    });
    const matched = matchRoute(path);
    if (!matched) return answer(notFound(`Resource not found: ${path}`));
    const handler = matched.route.methods[method];
    if (!handler) {
      answerHeaders.allow = Object.keys(matched.route.methods).join(', ');
      return answer(apiError(405, SearchAdsCode.METHOD_NOT_ALLOWED, `Method ${method} is not allowed on ${path}`));
    }

    const authorization = headerValue(headers, 'authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    const lookup = bearer ? this.users.lookupToken(bearer[1] as string) : { ok: false as const };
    if (!lookup.ok) return answer(apiError(401, SearchAdsCode.UNAUTHORIZED, 'Invalid credentials'));
    const user = lookup.user;

    const verdict = this.limiter.take(user.clientId);
    if (this.limiter.enabled) answerHeaders['x-rate-limit'] = rateLimitHeader(verdict);
    if (!verdict.allowed) {
      return answer(
        apiError(
          429,
          SearchAdsCode.TOO_MANY_REQUESTS,
          'Rate limit exceeded: too many requests for this API user in this hour',
        ),
      );
    }

    let org: SearchAdsOrg | undefined;
    if (matched.route.context) {
      const context = this.orgOfContext(headerValue(headers, 'x-ap-context'), user.orgIds);
      if (isResult(context)) return answer(context);
      org = context;
    }

    let parsed: unknown;
    if (method === 'POST' || method === 'PUT') {
      try {
        parsed = JSON.parse(body);
      } catch {
        return answer(apiError(400, SearchAdsCode.INVALID_JSON_REQUEST, 'The request body is not valid JSON'));
      }
    }
    return answer(
      handler({
        user,
        org,
        ids: matched.ids,
        query: new URLSearchParams(query),
        body: parsed,
        services: this.services,
      }),
    );
  }

  /** `X-AP-Context: orgId=<id>`: required, and the org must be one the API user may access. */
  private orgOfContext(header: string | undefined, allowed: readonly number[]): SearchAdsOrg | SearchAdsResult {
    if (header === undefined || header.trim() === '') {
      return apiError(403, SearchAdsCode.FORBIDDEN, 'This request requires the X-AP-Context header with orgId=<orgId>');
    }
    const match = /^\s*orgId\s*=\s*(\d{1,16})\s*$/.exec(header);
    if (!match) {
      return apiError(403, SearchAdsCode.FORBIDDEN, 'The X-AP-Context header must be orgId=<orgId>');
    }
    const orgId = Number(match[1]);
    const org = findOrg(orgId);
    if (!org || !allowed.includes(orgId)) {
      return apiError(403, SearchAdsCode.FORBIDDEN, `The API user has no access to org ${orgId}`);
    }
    return org;
  }
}
