import { rateLimitHeader } from '../search-ads/auth/user-hour.limiter';
import { apiError as searchAdsError, envelope as searchAdsEnvelope, SearchAdsCode } from '../search-ads/envelope';
import {
  envelope as marketEnvelope,
  MARKET_MESSAGES,
  MarketError,
  marketError,
  newRequestId as marketRequestId,
} from '../marketplace/envelope';
import {
  apiError,
  envelope as videoAdsEnvelope,
  MESSAGES,
  RequestIdFactory,
  VideoAdsCode,
} from '../video-ads/envelope';
import {
  envelope as shopEnvelope,
  newRequestId as shopRequestId,
  SHOP_MESSAGES,
  ShopCode,
  shopError,
} from '../video-shop/envelope';
import type { FaultModule } from './fault.schema';

export interface RateLimitReply {
  status: number;
  headers: Record<string, string>;
  payload: object;
}

/** The hourly budget search-ads reports in X-Rate-Limit when the sandbox's own limiter is off. */
const SEARCH_ADS_NOMINAL_HOUR_LIMIT = 3000;

/**
 * Each platform's own rate-limit refusal, built with the module's envelope so it is byte-compatible with what the
 * module answers when its real limiter trips (docs/providers.md, errors of each provider).
 */
export class RateLimitReplies {
  private readonly videoAdsIds: RequestIdFactory;

  constructor(
    private readonly now: () => number,
    private readonly searchAdsHourLimit: number,
  ) {
    this.videoAdsIds = new RequestIdFactory(now);
  }

  /** A path no module answers gets the video-ads envelope, as the sandbox's 404 does. */
  replyFor(module: FaultModule | undefined): RateLimitReply {
    switch (module) {
      case 'video-shop':
        return {
          status: 429,
          headers: {},
          payload: shopEnvelope(
            shopError(ShopCode.TOO_MANY_REQUESTS, SHOP_MESSAGES.tooManyRequests, 429),
            shopRequestId(this.now()),
          ),
        };
      case 'marketplace': {
        const { status, payload } = marketEnvelope(
          marketError(MarketError.RATE_LIMIT, MARKET_MESSAGES.rateLimit),
          marketRequestId(),
        );
        return { status, headers: {}, payload };
      }
      case 'search-ads': {
        const limit = this.searchAdsHourLimit > 0 ? this.searchAdsHourLimit : SEARCH_ADS_NOMINAL_HOUR_LIMIT;
        return {
          status: 429,
          headers: { 'x-rate-limit': rateLimitHeader({ allowed: false, limit, remaining: 0 }) },
          payload: searchAdsEnvelope(
            searchAdsError(
              429,
              SearchAdsCode.TOO_MANY_REQUESTS,
              'Rate limit exceeded: too many requests for this API user in this hour',
            ),
          ),
        };
      }
      default:
        // video-ads refuses with HTTP 200 and code 40100 in its envelope.
        return {
          status: 200,
          headers: {},
          payload: videoAdsEnvelope(apiError(VideoAdsCode.APP_QPS_LIMIT, MESSAGES.qpsLimit), this.videoAdsIds.next()),
        };
    }
  }
}
