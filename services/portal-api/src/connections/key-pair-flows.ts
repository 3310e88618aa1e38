import type { KeyPairFlowPlugin } from './key-pair-flow';
import { searchAdsKeyPairFlow } from './search-ads/search-ads.flow';

/** The providers connected with a key pair of the portal, one line each (their flows live in their own folders). */
export const KEY_PAIR_FLOWS: readonly KeyPairFlowPlugin[] = [searchAdsKeyPairFlow];
