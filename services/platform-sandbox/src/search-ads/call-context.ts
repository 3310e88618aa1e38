import type { ApiUser } from './auth/api-user.store';
import type { SearchAdsWorld } from './data/search-ads-data.generator';
import type { SearchAdsResult } from './envelope';
import type { SearchAdsOrg } from './sandbox-orgs';

export interface SearchAdsServices {
  world: SearchAdsWorld;
  now: () => number;
}

/** What a handler sees: the caller, the org of X-AP-Context (absent on /acls and /me), ids and parameters. */
export interface SearchAdsCallContext {
  user: ApiUser;
  org: SearchAdsOrg | undefined;
  /** Path ids by name, e.g. campaignId, adgroupId. */
  ids: Readonly<Record<string, number>>;
  query: URLSearchParams;
  /** The parsed JSON body of POST/PUT; undefined otherwise. */
  body: unknown;
  services: SearchAdsServices;
}

export type SearchAdsHandler = (ctx: SearchAdsCallContext) => SearchAdsResult;

/** The org of a context route (the router guarantees it). */
export function orgOf(ctx: SearchAdsCallContext): SearchAdsOrg {
  if (!ctx.org) throw new Error('unreachable: context route without an org');
  return ctx.org;
}
