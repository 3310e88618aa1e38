import { findAdvertiser } from '../sandbox-accounts';
import { generateStores, type StoreModel } from '../gmv-max/gmv-max.generator';
import { generateAdvertiserTree, type AdvertiserTree } from './advertiser-tree.generator';

export interface AdvertiserWorld extends AdvertiserTree {
  stores: StoreModel[];
}

/**
 * Generated data per advertiser, built on first use and kept: the world is fixed (sandbox-accounts), so the
 * cache is bounded by the number of advertisers.
 */
export class SandboxWorld {
  private readonly cache = new Map<string, AdvertiserWorld>();

  advertiser(advertiserId: string): AdvertiserWorld | undefined {
    const cached = this.cache.get(advertiserId);
    if (cached) return cached;
    const advertiser = findAdvertiser(advertiserId);
    if (!advertiser) return undefined;
    const world: AdvertiserWorld = { ...generateAdvertiserTree(advertiser), stores: generateStores(advertiser) };
    this.cache.set(advertiserId, world);
    return world;
  }
}
