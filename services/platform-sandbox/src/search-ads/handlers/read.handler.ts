import { orgOf, type SearchAdsCallContext } from '../call-context';
import type { AdGroupModel, CampaignModel } from '../data/search-ads-data.generator';
import { isResult, notFound, ok, type SearchAdsResult } from '../envelope';
import { page, queryPaging } from '../params.reader';
import { findOrg, PARENT_ORG_ID } from '../sandbox-orgs';
import { adGroupView, campaignView, keywordView } from './views';

/** GET /acls: the orgs the API user can see, with its roles (no X-AP-Context). */
export function getAcls(ctx: SearchAdsCallContext): SearchAdsResult {
  const orgs = ctx.user.orgIds.flatMap((orgId) => {
    const org = findOrg(orgId);
    return org ? [org] : [];
  });
  return ok(
    orgs.map((org) => ({
      orgName: org.orgName,
      orgId: org.orgId,
      currency: org.currency,
      timeZone: org.timeZone,
      paymentModel: org.paymentModel,
      roleNames: ['API Account Read Write'],
      parentOrgId: PARENT_ORG_ID,
      displayName: org.orgName,
    })),
  );
}

/** GET /me: the caller (no X-AP-Context). */
export function getMe(ctx: SearchAdsCallContext): SearchAdsResult {
  return ok({ userId: ctx.user.userId, parentOrgId: PARENT_ORG_ID });
}

/** The campaign of the path in the context's org; another org's campaign is not found either. */
export function campaignOf(ctx: SearchAdsCallContext): CampaignModel | SearchAdsResult {
  const campaignId = ctx.ids.campaignId as number;
  const campaign = ctx.services.world.campaign(orgOf(ctx), campaignId);
  return campaign ?? notFound(`Campaign with id ${campaignId} not found`, 'campaignId');
}

export function adGroupOf(
  ctx: SearchAdsCallContext,
): { campaign: CampaignModel; adGroup: AdGroupModel } | SearchAdsResult {
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  const adgroupId = ctx.ids.adgroupId as number;
  const adGroup = campaign.adGroups.find((group) => group.id === adgroupId);
  return adGroup ? { campaign, adGroup } : notFound(`AdGroup with id ${adgroupId} not found`, 'adGroupId');
}

export function listCampaigns(ctx: SearchAdsCallContext): SearchAdsResult {
  const paging = queryPaging(ctx.query);
  if (isResult(paging)) return paging;
  const org = orgOf(ctx);
  const { items, totalResults } = page(ctx.services.world.campaigns(org), paging);
  const now = ctx.services.now();
  return ok(
    items.map((campaign) => campaignView(campaign, org, now)),
    { totalResults, startIndex: paging.offset, itemsPerPage: items.length },
  );
}

export function getCampaign(ctx: SearchAdsCallContext): SearchAdsResult {
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  return ok(campaignView(campaign, orgOf(ctx), ctx.services.now()));
}

export function listAdGroups(ctx: SearchAdsCallContext): SearchAdsResult {
  const paging = queryPaging(ctx.query);
  if (isResult(paging)) return paging;
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  const org = orgOf(ctx);
  const { items, totalResults } = page(campaign.adGroups, paging);
  const now = ctx.services.now();
  return ok(
    items.map((adGroup) => adGroupView(adGroup, org, now)),
    { totalResults, startIndex: paging.offset, itemsPerPage: items.length },
  );
}

export function getAdGroup(ctx: SearchAdsCallContext): SearchAdsResult {
  const found = adGroupOf(ctx);
  if (isResult(found)) return found;
  return ok(adGroupView(found.adGroup, orgOf(ctx), ctx.services.now()));
}

export function listTargetingKeywords(ctx: SearchAdsCallContext): SearchAdsResult {
  const paging = queryPaging(ctx.query);
  if (isResult(paging)) return paging;
  const found = adGroupOf(ctx);
  if (isResult(found)) return found;
  const org = orgOf(ctx);
  const { items, totalResults } = page(found.adGroup.keywords, paging);
  return ok(
    items.map((keyword) => keywordView(keyword, org)),
    { totalResults, startIndex: paging.offset, itemsPerPage: items.length },
  );
}
