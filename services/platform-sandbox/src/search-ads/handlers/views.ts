import {
  money,
  platformTime,
  type AdGroupModel,
  type CampaignModel,
  type KeywordModel,
} from '../data/search-ads-data.generator';
import type { SearchAdsOrg } from '../sandbox-orgs';

const DAY_MS = 86_400_000;

/** The Campaign object of v5 as the platform answers it. */
export function campaignView(campaign: CampaignModel, org: SearchAdsOrg, nowMs: number): Record<string, unknown> {
  const started = campaign.startDay * DAY_MS <= nowMs;
  const running = campaign.status === 'ENABLED' && started;
  return {
    id: campaign.id,
    orgId: campaign.orgId,
    name: campaign.name,
    budgetAmount: null,
    dailyBudgetAmount: money(campaign.dailyBudgetMinor, org.currency),
    adamId: campaign.adamId,
    paymentModel: org.paymentModel,
    locInvoiceDetails: null,
    budgetOrders: [],
    startTime: platformTime(campaign.startDay * DAY_MS),
    endTime: null,
    status: campaign.status,
    servingStatus: running ? 'RUNNING' : 'NOT_RUNNING',
    creationTime: platformTime(campaign.createdMs),
    servingStateReasons: running
      ? null
      : [campaign.status === 'PAUSED' ? 'PAUSED_BY_USER' : 'START_DATE_IN_THE_FUTURE'],
    modificationTime: platformTime(campaign.createdMs + DAY_MS),
    deleted: false,
    sapinLawResponse: 'NO_CHANGE',
    countriesOrRegions: campaign.countriesOrRegions,
    countryOrRegionServingStateReasons: {},
    supplySources: [campaign.supplySource],
    adChannelType: campaign.supplySource === 'APPSTORE_SEARCH_RESULTS' ? 'SEARCH' : 'DISPLAY',
    billingEvent: campaign.supplySource === 'APPSTORE_SEARCH_RESULTS' ? 'TAPS' : 'IMPRESSIONS',
    displayStatus: running ? 'RUNNING' : campaign.status === 'PAUSED' ? 'PAUSED' : 'ON_HOLD',
  };
}

export function adGroupView(adGroup: AdGroupModel, org: SearchAdsOrg, nowMs: number): Record<string, unknown> {
  const running = adGroup.status === 'ENABLED' && adGroup.startDay * DAY_MS <= nowMs;
  return {
    id: adGroup.id,
    campaignId: adGroup.campaignId,
    orgId: org.orgId,
    name: adGroup.name,
    cpaGoal: null,
    startTime: platformTime(adGroup.startDay * DAY_MS),
    endTime: null,
    automatedKeywordsOptIn: adGroup.automatedKeywordsOptIn,
    defaultBidAmount: money(adGroup.defaultBidMinor, org.currency),
    pricingModel: 'CPC',
    targetingDimensions: {
      age: null,
      gender: null,
      country: null,
      adminArea: null,
      locality: null,
      deviceClass: { included: ['IPHONE', 'IPAD'] },
      daypart: null,
      appDownloaders: null,
    },
    status: adGroup.status,
    servingStatus: running ? 'RUNNING' : 'NOT_RUNNING',
    servingStateReasons: running ? null : ['PAUSED_BY_USER'],
    displayStatus: running ? 'RUNNING' : 'PAUSED',
    modificationTime: platformTime(adGroup.startDay * DAY_MS),
    deleted: false,
  };
}

export function keywordView(keyword: KeywordModel, org: SearchAdsOrg): Record<string, unknown> {
  return {
    id: keyword.id,
    adGroupId: keyword.adGroupId,
    text: keyword.text,
    status: keyword.status,
    matchType: keyword.matchType,
    bidAmount: money(keyword.bidMinor, org.currency),
    creationTime: platformTime(keyword.modifiedMs - DAY_MS),
    modificationTime: platformTime(keyword.modifiedMs),
    deleted: false,
  };
}
