import type { SuggestionPlugin } from '../../suggestion.plugin';
import { buildVideoAdsParams } from './video-ads-params.builder';

export const VIDEO_ADS_PLUGIN: SuggestionPlugin = {
  provider: 'video-ads',
  buildParams: buildVideoAdsParams,
  howToGet: {
    advertiser_id: 'an advertiser_id from /v1.3/oauth2/advertiser/get/ (call_endpoint, no parameters)',
    advertiser_ids: 'advertiser ids from /v1.3/oauth2/advertiser/get/ (call_endpoint, no parameters)',
    store_ids: 'a store_id from /v1.3/gmv_max/store/list/ (call_endpoint with advertiser_id)',
  },
};
