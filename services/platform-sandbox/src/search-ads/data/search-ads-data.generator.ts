import { hashSeed, Prng } from '../../video-ads/data/prng';
import type { SearchAdsOrg } from '../sandbox-orgs';

const DAY_MS = 86_400_000;

export interface Money {
  amount: string;
  currency: string;
}

export interface CampaignModel {
  id: number;
  orgId: number;
  name: string;
  adamId: number;
  appName: string;
  /** Minor units (cents). */
  dailyBudgetMinor: number;
  status: 'ENABLED' | 'PAUSED';
  countriesOrRegions: string[];
  supplySource:
    'APPSTORE_SEARCH_RESULTS' | 'APPSTORE_SEARCH_TAB' | 'APPSTORE_TODAY_TAB' | 'APPSTORE_PRODUCT_PAGES_BROWSE';
  /** Epoch day it started delivering. */
  startDay: number;
  createdMs: number;
  adGroups: AdGroupModel[];
}

export interface AdGroupModel {
  id: number;
  campaignId: number;
  name: string;
  status: 'ENABLED' | 'PAUSED';
  defaultBidMinor: number;
  automatedKeywordsOptIn: boolean;
  startDay: number;
  keywords: KeywordModel[];
}

export interface KeywordModel {
  id: number;
  adGroupId: number;
  campaignId: number;
  text: string;
  status: 'ACTIVE' | 'PAUSED';
  matchType: 'EXACT' | 'BROAD';
  bidMinor: number;
  modifiedMs: number;
}

/** One day of delivery of one campaign in one storefront. */
export interface DayMetrics {
  impressions: number;
  taps: number;
  tapInstalls: number;
  viewInstalls: number;
  tapNewDownloads: number;
  tapRedownloads: number;
  viewNewDownloads: number;
  viewRedownloads: number;
  /** Minor units. */
  spendMinor: number;
}

export const ZERO_METRICS: DayMetrics = {
  impressions: 0,
  taps: 0,
  tapInstalls: 0,
  viewInstalls: 0,
  tapNewDownloads: 0,
  tapRedownloads: 0,
  viewNewDownloads: 0,
  viewRedownloads: 0,
  spendMinor: 0,
};

export function addMetrics(a: DayMetrics, b: DayMetrics): DayMetrics {
  return {
    impressions: a.impressions + b.impressions,
    taps: a.taps + b.taps,
    tapInstalls: a.tapInstalls + b.tapInstalls,
    viewInstalls: a.viewInstalls + b.viewInstalls,
    tapNewDownloads: a.tapNewDownloads + b.tapNewDownloads,
    tapRedownloads: a.tapRedownloads + b.tapRedownloads,
    viewNewDownloads: a.viewNewDownloads + b.viewNewDownloads,
    viewRedownloads: a.viewRedownloads + b.viewRedownloads,
    spendMinor: a.spendMinor + b.spendMinor,
  };
}

export function money(minor: number, currency: string): Money {
  return { amount: (minor / 100).toFixed(2), currency };
}

/** The platform's timestamps: ISO local time with milliseconds and no zone, e.g. 2026-03-04T08:15:00.000. */
export function platformTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const APPS = [
  'Trail Notes',
  'Budget Buddy',
  'Pocket Chef',
  'Sleep Harbor',
  'Word Garden',
  'Pixel Pets',
  'Lingo Sprint',
  'FitStreak',
] as const;
const THEMES = ['Brand', 'Category', 'Competitor', 'Discovery', 'Retargeting', 'Launch'] as const;
const GROUPS = ['Exact core', 'Broad reach', 'Search match', 'Long tail', 'Seasonal', 'High intent'] as const;
const WORDS = [
  'budget',
  'planner',
  'recipe',
  'sleep',
  'tracker',
  'habit',
  'word game',
  'puzzle',
  'fitness',
  'language',
  'notes',
  'hiking',
  'meal prep',
  'pets',
  'offline',
  'free',
  'best',
  'daily',
  'kids',
  'app',
] as const;

/** Epoch day of 2025-01-01: the earliest campaign start. */
const FIRST_START_DAY = Date.UTC(2025, 0, 1) / DAY_MS;

/** A 10-digit id; about half of them above 2^32 (the platform's ids are JSON numbers, all below 2^53). */
function tenDigitId(prng: Prng, used: Set<number>): number {
  for (;;) {
    const id = prng.int(1_000_000_000, 9_999_999_999);
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/** Campaigns, ad groups and keywords of one org, generated from its id (the same on every run). */
export function generateOrg(org: SearchAdsOrg): CampaignModel[] {
  const prng = new Prng(`search-ads:${org.orgId}`);
  const used = new Set<number>();
  const count = prng.int(32, 46);
  const campaigns: CampaignModel[] = [];
  for (let index = 0; index < count; index++) {
    const appIndex = prng.int(0, APPS.length - 1);
    const startDay = FIRST_START_DAY + prng.int(0, 600);
    const createdMs = (startDay - prng.int(0, 5)) * DAY_MS + prng.int(0, DAY_MS - 1);
    const countries = org.countries.filter((_, i) => i === 0 || prng.chance(0.4));
    const id = tenDigitId(prng, used);
    const campaign: CampaignModel = {
      id,
      orgId: org.orgId,
      name: `${APPS[appIndex]} - ${prng.pick(THEMES)} - ${countries.join('/')} ${index + 1}`,
      adamId: 1_400_000_000 + appIndex * 7_919_113,
      appName: APPS[appIndex] as string,
      dailyBudgetMinor: prng.int(20, 500) * 100,
      status: prng.chance(0.75) ? 'ENABLED' : 'PAUSED',
      countriesOrRegions: countries,
      supplySource: prng.weighted([
        ['APPSTORE_SEARCH_RESULTS', 6],
        ['APPSTORE_SEARCH_TAB', 2],
        ['APPSTORE_TODAY_TAB', 1],
        ['APPSTORE_PRODUCT_PAGES_BROWSE', 1],
      ] as const),
      startDay,
      createdMs,
      adGroups: [],
    };
    const groupCount = prng.int(2, 5);
    for (let g = 0; g < groupCount; g++) {
      const adGroup: AdGroupModel = {
        id: tenDigitId(prng, used),
        campaignId: id,
        name: `${prng.pick(GROUPS)} ${g + 1}`,
        status: prng.chance(0.8) ? 'ENABLED' : 'PAUSED',
        defaultBidMinor: prng.int(50, 400),
        automatedKeywordsOptIn: prng.chance(0.3),
        startDay: startDay + prng.int(0, 3),
        keywords: [],
      };
      const keywordCount = campaign.supplySource === 'APPSTORE_SEARCH_RESULTS' ? prng.int(4, 18) : 0;
      const texts = new Set<string>();
      for (let k = 0; k < keywordCount; k++) {
        const text = `${prng.pick(WORDS)} ${prng.pick(WORDS)}`;
        if (texts.has(text)) continue;
        texts.add(text);
        adGroup.keywords.push({
          id: tenDigitId(prng, used),
          adGroupId: adGroup.id,
          campaignId: id,
          text,
          status: prng.chance(0.85) ? 'ACTIVE' : 'PAUSED',
          matchType: prng.chance(0.6) ? 'EXACT' : 'BROAD',
          bidMinor: adGroup.defaultBidMinor + prng.int(-30, 80),
          modifiedMs: createdMs + prng.int(0, 200) * DAY_MS,
        });
      }
      campaign.adGroups.push(adGroup);
    }
    campaigns.push(campaign);
  }
  // The platform lists campaigns in creation order.
  return campaigns.sort((a, b) => a.createdMs - b.createdMs || a.id - b.id);
}

/**
 * Delivery of one campaign in one storefront on one day, from (campaign, storefront, day) alone. Paused campaigns
 * and days before the start deliver nothing.
 */
export function dayMetrics(campaign: CampaignModel, country: string, day: number): DayMetrics {
  if (campaign.status === 'PAUSED' || day < campaign.startDay) return ZERO_METRICS;
  const prng = new Prng(hashSeed(`${campaign.id}:${country}:${day}`));
  const impressions = prng.int(150, 4000);
  const taps = Math.round(impressions * prng.range(0.02, 0.12));
  const tapInstalls = Math.round(taps * prng.range(0.3, 0.7));
  const viewInstalls = Math.round(impressions * prng.range(0, 0.004));
  const tapRedownloads = Math.round(tapInstalls * prng.range(0.05, 0.2));
  const viewRedownloads = Math.round(viewInstalls * prng.range(0.05, 0.2));
  const spendMinor = Math.min(campaign.dailyBudgetMinor, Math.round(taps * prng.range(40, 250)));
  return {
    impressions,
    taps,
    tapInstalls,
    viewInstalls,
    tapNewDownloads: tapInstalls - tapRedownloads,
    tapRedownloads,
    viewNewDownloads: viewInstalls - viewRedownloads,
    viewRedownloads,
    spendMinor,
  };
}

/** The generated orgs, built on first use. */
export class SearchAdsWorld {
  private readonly orgs = new Map<number, CampaignModel[]>();

  campaigns(org: SearchAdsOrg): CampaignModel[] {
    let campaigns = this.orgs.get(org.orgId);
    if (!campaigns) {
      campaigns = generateOrg(org);
      this.orgs.set(org.orgId, campaigns);
    }
    return campaigns;
  }

  campaign(org: SearchAdsOrg, campaignId: number): CampaignModel | undefined {
    return this.campaigns(org).find((campaign) => campaign.id === campaignId);
  }
}
