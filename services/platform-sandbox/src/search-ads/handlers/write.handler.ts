import { randomInt } from 'node:crypto';
import { orgOf, type SearchAdsCallContext } from '../call-context';
import { invalidValue, isResult, ok, type SearchAdsResult } from '../envelope';
import { adGroupOf, campaignOf } from './read.handler';
import { adGroupView, campaignView } from './views';

/*
 * Writes: authenticated and validated like reads, answered with success, and nothing changes. They exist so that
 * a write leaking through the gateway shows in the request log with the platform's success answer.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const newId = (): number => randomInt(1_000_000_000, 9_999_999_999);

function objectBody(ctx: SearchAdsCallContext): Record<string, unknown> | SearchAdsResult {
  return isObject(ctx.body) ? ctx.body : invalidValue('', 'The request body must be a JSON object');
}

export function createCampaign(ctx: SearchAdsCallContext): SearchAdsResult {
  const body = objectBody(ctx);
  if (isResult(body)) return body;
  if (typeof body.name !== 'string' || body.name === '') return invalidValue('name', 'name is required');
  if (typeof body.adamId !== 'number') return invalidValue('adamId', 'adamId is required');
  const org = orgOf(ctx);
  return ok({ ...body, id: newId(), orgId: org.orgId, status: body.status ?? 'ENABLED', deleted: false });
}

export function updateCampaign(ctx: SearchAdsCallContext): SearchAdsResult {
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  const body = objectBody(ctx);
  if (isResult(body)) return body;
  const changes = isObject(body.campaign) ? body.campaign : body;
  return ok({ ...campaignView(campaign, orgOf(ctx), ctx.services.now()), ...changes, id: campaign.id });
}

export function deleteCampaign(ctx: SearchAdsCallContext): SearchAdsResult {
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  return ok(null);
}

export function createAdGroup(ctx: SearchAdsCallContext): SearchAdsResult {
  const campaign = campaignOf(ctx);
  if (isResult(campaign)) return campaign;
  const body = objectBody(ctx);
  if (isResult(body)) return body;
  if (typeof body.name !== 'string' || body.name === '') return invalidValue('name', 'name is required');
  if (!isObject(body.defaultBidAmount)) return invalidValue('defaultBidAmount', 'defaultBidAmount is required');
  return ok({ ...body, id: newId(), campaignId: campaign.id, orgId: orgOf(ctx).orgId, deleted: false });
}

export function updateAdGroup(ctx: SearchAdsCallContext): SearchAdsResult {
  const found = adGroupOf(ctx);
  if (isResult(found)) return found;
  const body = objectBody(ctx);
  if (isResult(body)) return body;
  return ok({ ...adGroupView(found.adGroup, orgOf(ctx), ctx.services.now()), ...body, id: found.adGroup.id });
}

export function createTargetingKeywords(ctx: SearchAdsCallContext): SearchAdsResult {
  const found = adGroupOf(ctx);
  if (isResult(found)) return found;
  if (!Array.isArray(ctx.body) || ctx.body.length === 0) {
    return invalidValue('', 'The request body must be a non-empty list of keywords');
  }
  const keywords: Record<string, unknown>[] = [];
  for (const [index, keyword] of ctx.body.entries()) {
    if (!isObject(keyword) || typeof keyword.text !== 'string' || keyword.text === '') {
      return invalidValue(`[${index}].text`, 'text is required');
    }
    if (keyword.matchType !== 'EXACT' && keyword.matchType !== 'BROAD') {
      return invalidValue(`[${index}].matchType`, 'matchType must be EXACT or BROAD');
    }
    keywords.push({
      ...keyword,
      id: newId(),
      adGroupId: found.adGroup.id,
      status: keyword.status ?? 'ACTIVE',
      deleted: false,
    });
  }
  return ok(keywords);
}
