import { definePlatformModule, type ModuleReply } from '../platform-modules';
import { ApiAnswerLog } from './api-answer.log';
import { ApiUserStore } from './auth/api-user.store';
import { API_USERS_PATH, apiUsersPage } from './auth/api-users.handler';
import { tokenEndpoint, TOKEN_PATH } from './auth/token.handler';
import { rateLimitHeader, UserHourLimiter } from './auth/user-hour.limiter';
import { SearchAdsWorld } from './data/search-ads-data.generator';
import { apiError, envelope, SearchAdsCode } from './envelope';
import { SEARCH_ADS_PREFIX, SearchAdsApi } from './search-ads.api';
import { SEARCH_ADS_ENV } from './search-ads.config';
import { searchAdsControl } from './search-ads.control';

/** Mount of the token host (appleid.apple.com) in the sandbox. */
export const SEARCH_ADS_AUTH_PREFIX = '/search-ads-auth';

/** The hourly budget X-Rate-Limit reports on a rate_limit fault when the sandbox's own limiter is off. */
const NOMINAL_HOUR_LIMIT = 3000;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * search-ads = Apple Ads Campaign Management API v5: host api.searchads.apple.com at /search-ads, the token host
 * appleid.apple.com at /search-ads-auth (token endpoint and the API user page).
 */
export const searchAdsModule = definePlatformModule({
  name: 'search-ads',
  env: SEARCH_ADS_ENV,
  create(config, { now, logger }) {
    const users = new ApiUserStore(now, config.SANDBOX_SEARCH_ADS_ACCESS_TOKEN_TTL_S * 1000);
    const api = new SearchAdsApi(
      users,
      { world: new SearchAdsWorld(), now },
      new UserHourLimiter(config.SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT, now),
    );
    const answers = new ApiAnswerLog(config.SANDBOX_REQUEST_LOG_LIMIT, now);
    const serverError: ModuleReply = {
      kind: 'json',
      status: 500,
      payload: envelope(apiError(500, SearchAdsCode.INTERNAL_ERROR, 'Internal server error')),
    };

    function logged(request: { method: string; path: string }, reply: ModuleReply): ModuleReply {
      answers.record(request.method, request.path, reply.kind === 'json' ? reply.status : 200);
      return reply;
    }

    function auth(request: { method: string; path: string; query: string; body: string; contentType?: string }) {
      const path = request.path.slice(SEARCH_ADS_AUTH_PREFIX.length);
      if (path === TOKEN_PATH) {
        return tokenEndpoint(users, now, { ...request, contentType: request.contentType })
          .catch((error: unknown) => {
            logger?.error({ err: error, path: request.path }, 'search-ads token endpoint failed');
            return { kind: 'json', status: 500, payload: { error: 'server_error' } } satisfies ModuleReply;
          })
          .then((reply) => logged(request, reply));
      }
      if (path === API_USERS_PATH && (request.method === 'GET' || request.method === 'POST')) {
        return apiUsersPage(users, request.path, request.method, request.body);
      }
      return { kind: 'json', status: 404, payload: { error: 'not_found' } } satisfies ModuleReply;
    }

    const hourLimit = config.SANDBOX_SEARCH_ADS_USER_HOUR_LIMIT;

    return {
      prefixes: [SEARCH_ADS_PREFIX, SEARCH_ADS_AUTH_PREFIX],
      control: searchAdsControl(users, answers),
      faults: {
        exemptRoots: [SEARCH_ADS_AUTH_PREFIX],
        rateLimitReply: () => ({
          status: 429,
          headers: {
            'x-rate-limit': rateLimitHeader({
              allowed: false,
              limit: hourLimit > 0 ? hourLimit : NOMINAL_HOUR_LIMIT,
              remaining: 0,
            }),
          },
          payload: envelope(
            apiError(
              429,
              SearchAdsCode.TOO_MANY_REQUESTS,
              'Rate limit exceeded: too many requests for this API user in this hour',
            ),
          ),
        }),
      },
      handle(request) {
        if (request.path === SEARCH_ADS_AUTH_PREFIX || request.path.startsWith(`${SEARCH_ADS_AUTH_PREFIX}/`)) {
          return auth({ ...request, contentType: headerValue(request.headers['content-type']) });
        }
        try {
          const path = request.path.slice(SEARCH_ADS_PREFIX.length);
          const answer = api.handle(request.method, path, request.query, request.headers, request.body);
          return logged(request, {
            kind: 'json',
            status: answer.status,
            payload: answer.payload,
            headers: answer.headers,
          });
        } catch (error) {
          logger?.error({ err: error, path: request.path }, 'search-ads handler failed');
          return logged(request, serverError);
        }
      },
    };
  },
});
