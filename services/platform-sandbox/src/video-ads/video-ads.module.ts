import { parseForm } from '../http/http-io';
import { AppQpsLimiter } from '../limits/app-qps.limiter';
import { definePlatformModule, type ModuleReply } from '../platform-modules';
import { GrantStore } from './auth/grant.store';
import { PORTAL_PATH, PortalApi } from './auth/portal.handler';
import { SandboxWorld } from './data/world';
import { apiError, envelope, MESSAGES, RequestIdFactory, VideoAdsCode, type ApiResult } from './envelope';
import { ReportCache } from './report/report.engine';
import { VIDEO_ADS_ENV } from './video-ads.config';
import { OPEN_API_PREFIX, VideoAdsApi } from './video-ads.api';
import { videoAdsControl } from './video-ads.control';

const OPEN_API_ROOT = `${OPEN_API_PREFIX}/`;

/**
 * video-ads = the TikTok Business API v1.3 at the sandbox's root: /open_api and the advertiser authorization page
 * /portal/auth. Registered as the fallback module, it also answers paths no module claims (HTTP 404, code 40400).
 */
export const videoAdsModule = definePlatformModule({
  name: 'video-ads',
  env: VIDEO_ADS_ENV,
  create(config, { now, logger }) {
    const grants = new GrantStore(
      [
        {
          app_id: config.SANDBOX_APP_ID,
          secret: config.SANDBOX_APP_SECRET,
          name: 'Data Gateway',
          redirectUris: config.SANDBOX_APP_REDIRECT_URIS,
        },
      ],
      now,
      config.SANDBOX_AUTH_CODE_TTL_MS,
    );
    const api = new VideoAdsApi(
      { grants, world: new SandboxWorld(), reports: new ReportCache(), now },
      new AppQpsLimiter(config.SANDBOX_APP_QPS, now),
    );
    const portal = new PortalApi(grants);
    const requestIds = new RequestIdFactory(now);

    const answer = (result: ApiResult): ModuleReply => ({
      kind: 'json',
      status: result.status ?? 200,
      payload: envelope(result, requestIds.next()),
    });

    return {
      // '/open_api' rather than OPEN_API_PREFIX: other versions are the platform's too (it answers them 404).
      prefixes: ['/open_api', PORTAL_PATH],
      control: videoAdsControl(grants, config.SANDBOX_APP_ID),
      faults: {
        exemptRoots: [PORTAL_PATH, `${OPEN_API_PREFIX}/oauth2/access_token`],
        // The platform refuses with HTTP 200 and code 40100 in its envelope.
        rateLimitReply: () => ({
          status: 200,
          headers: {},
          payload: envelope(apiError(VideoAdsCode.APP_QPS_LIMIT, MESSAGES.qpsLimit), requestIds.next()),
        }),
      },
      handle(request) {
        const { method, path } = request;
        if (path.startsWith(OPEN_API_ROOT)) {
          let result: ApiResult;
          try {
            const token = request.headers['access-token'] as string | undefined;
            result = api.handle(method, path.slice(OPEN_API_PREFIX.length), request.query, token, request.body);
          } catch (error) {
            logger?.error({ err: error, path }, 'handler failed');
            result = apiError(VideoAdsCode.SERVER_ERROR, 'Internal service error. Please retry later.');
          }
          return answer(result);
        }
        if (path === PORTAL_PATH && (method === 'GET' || method === 'POST')) {
          return portal.handle(method, parseForm(method === 'GET' ? request.query : request.body));
        }
        // The platform answers unknown paths with HTTP 404; we keep its envelope so clients can still parse it.
        return answer(apiError(VideoAdsCode.NOT_FOUND, `Not found: ${path}`, 404));
      },
    };
  },
});
