import type { Grant, GrantStore, SandboxApp } from './auth/grant.store';
import type { SandboxWorld } from './data/world';
import { apiError, MESSAGES, VideoAdsCode, type ApiResult } from './envelope';
import type { ParamReader } from './params.reader';
import type { ReportCache } from './report/report.engine';

export interface VideoAdsServices {
  grants: GrantStore;
  world: SandboxWorld;
  reports: ReportCache;
  now: () => number;
}

/** Everything a handler sees: the parsed parameters, who is calling, and the sandbox state. */
export interface CallContext {
  params: ParamReader;
  app: SandboxApp;
  /** The token's grant; undefined on the app-authenticated oauth2 paths. */
  grant: Grant | undefined;
  services: VideoAdsServices;
}

export type Handler = (ctx: CallContext) => ApiResult;

/** 40001 unless the token's grant covers the advertiser. */
export function checkAdvertiser(ctx: CallContext, advertiserId: string): ApiResult | undefined {
  if (ctx.grant?.advertiser_ids.includes(advertiserId)) return undefined;
  return apiError(VideoAdsCode.NO_PERMISSION, MESSAGES.noPermission(advertiserId));
}
