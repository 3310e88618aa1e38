import type { SuggestionPlugin } from '../../suggestion.plugin';
import { buildVideoShopParams } from './video-shop-params.builder';

export const VIDEO_SHOP_PLUGIN: SuggestionPlugin = {
  provider: 'video-shop',
  buildParams: buildVideoShopParams,
  howToGet: {
    ids: 'order ids from /order/202309/orders/search (data.orders[].id)',
  },
};
