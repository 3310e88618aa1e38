import type { ProviderId } from '@gateway/catalogue';
import type { SuggestionPlugin } from '../../suggestion.plugin';
import { marketplaceAppOf, preferMarketplaceApp } from './marketplace-intent.extractor';
import { buildMarketplaceParams } from './marketplace-params.builder';

// The three apps share one platform's words (orders, sales, clicks): the app the wording names decides.
function appPlugin(app: ProviderId, howToGet: Readonly<Record<string, string>>): SuggestionPlugin {
  return {
    provider: app,
    buildParams: buildMarketplaceParams,
    // "ads" with nothing else known starts at the ads app's starting point (the ads balance).
    namedBy: (question) => marketplaceAppOf(question) === app,
    narrowRanking: (question, ranked) => preferMarketplaceApp(app, question, ranked),
    howToGet,
  };
}

export const MARKETPLACE_PLUGIN = appPlugin('marketplace', {
  order_sn_list: 'order numbers from /api/v2/order/get_order_list (marketplace; response.order_list[].order_sn)',
  item_id_list: 'item ids from /api/v2/product/get_item_list (marketplace; response.item[].item_id)',
});

export const MARKETPLACE_ADS_PLUGIN = appPlugin('marketplace-ads', {
  campaign_id_list:
    'campaign ids from /api/v2/ads/get_product_level_campaign_id_list (marketplace-ads, call_endpoint; ' +
    'response.campaign_list[].campaign_id), comma-joined',
});

export const MARKETPLACE_AFFILIATE_PLUGIN = appPlugin('marketplace-affiliate', {});
