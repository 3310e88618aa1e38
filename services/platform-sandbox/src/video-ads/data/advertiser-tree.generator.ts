import { advertiserOrdinal, type SandboxAdvertiser } from '../sandbox-accounts';
import { formatDateTime, SECONDS_PER_DAY } from './calendar';
import { Prng } from './prng';

/** The filter value of `primary_status` each record falls under (list filtering). */
export type PrimaryStatus = 'STATUS_DELIVERY_OK' | 'STATUS_DISABLE' | 'STATUS_DELETE' | 'STATUS_NOT_DELIVERY';

export type ApiRecord = Record<string, unknown>;

export interface CampaignModel {
  record: ApiRecord & { campaign_id: string; campaign_name: string; objective_type: string };
  primary: PrimaryStatus;
  secondary: string;
  createdAt: number;
}

export interface AdGroupModel {
  record: ApiRecord & { adgroup_id: string; adgroup_name: string; campaign_id: string };
  campaign: CampaignModel;
  primary: PrimaryStatus;
  secondary: string;
  createdAt: number;
}

/** How much an ad delivers; fixed per ad so its daily numbers stay in character. */
export interface DeliveryProfile {
  impressions: number;
  ctr: number;
  cpmUsd: number;
  cvr: number;
  playRate: number;
  payRate: number;
  orderValueUsd: number;
}

export interface AdModel {
  record: ApiRecord & { ad_id: string; ad_name: string; adgroup_id: string; campaign_id: string };
  adgroup: AdGroupModel;
  campaign: CampaignModel;
  primary: PrimaryStatus;
  secondary: string;
  createdAt: number;
  /** Epoch day of creation: no delivery before it. */
  createDay: number;
  delivering: boolean;
  profile: DeliveryProfile;
}

export interface AdvertiserTree {
  advertiser: SandboxAdvertiser;
  /** Money amounts in the advertiser currency = USD amount x this factor. */
  currencyFactor: number;
  campaigns: CampaignModel[];
  adgroups: AdGroupModel[];
  ads: AdModel[];
}

const CURRENCY_FACTORS: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 150 };

/** Money amounts in this currency = USD amount x the factor (keeps JPY budgets looking like JPY). */
export function currencyFactor(currency: string): number {
  return CURRENCY_FACTORS[currency] ?? 1;
}

// Generated records are never newer than this, so reports for recent dates always see every entity.
const LATEST_CREATE = Date.UTC(2024, 11, 1) / 1000;
const LATEST_MODIFY = Date.UTC(2025, 5, 30) / 1000;

const OBJECTIVES = [
  ['WEB_CONVERSIONS', 5],
  ['TRAFFIC', 3],
  ['VIDEO_VIEWS', 2],
  ['REACH', 1],
  ['APP_PROMOTION', 1],
  ['LEAD_GENERATION', 1],
  ['ENGAGEMENT', 1],
  ['PRODUCT_SALES', 2],
] as const;

const OPTIMIZATION = {
  WEB_CONVERSIONS: ['CONVERT', 'OCPM'],
  TRAFFIC: ['CLICK', 'CPC'],
  VIDEO_VIEWS: ['ENGAGED_VIEW', 'CPV'],
  REACH: ['REACH', 'CPM'],
  APP_PROMOTION: ['INSTALL', 'OCPM'],
  LEAD_GENERATION: ['LEAD_GENERATION', 'OCPM'],
  ENGAGEMENT: ['FOLLOWERS', 'OCPM'],
  PRODUCT_SALES: ['VALUE', 'OCPM'],
} as const satisfies Record<(typeof OBJECTIVES)[number][0], readonly [string, string]>;

const THEMES = [
  'Spring Sale',
  'Summer Launch',
  'Back to School',
  'Black Friday',
  'Holiday Gifting',
  'New Year Reset',
  'Evergreen',
  'Brand Awareness',
  'Retargeting',
  'Prospecting',
  'Creator Collab',
  'Bestsellers',
  'Clearance',
  'App Install Push',
];
const AUDIENCES = ['Broad', 'Lookalike 1%', 'Lookalike 5%', 'Interest: Beauty', 'Interest: Gaming', 'Website Visitors'];
const AGE_SETS = [
  ['AGE_18_24', 'AGE_25_34'],
  ['AGE_25_34', 'AGE_35_44'],
  ['AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54'],
  ['AGE_35_44', 'AGE_45_54', 'AGE_55_100'],
];
const CREATIVES = ['UGC video', 'Product demo', 'Unboxing', 'Testimonial', 'Spark Ad', 'Tutorial', 'Before-after'];
const HOOKS = ['hook A', 'hook B', 'hook C', 'price hook', 'question hook'];
const AD_TEXTS = [
  'Limited time only - shop the drop today.',
  'See why thousands switched this month.',
  'Free shipping on your first order.',
  'Made for everyday, built to last.',
  'Tap to discover the full collection.',
  'Your new favourite is one tap away.',
];
const CALLS_TO_ACTION = ['SHOP_NOW', 'LEARN_MORE', 'SIGN_UP', 'DOWNLOAD_NOW', 'ORDER_NOW', 'WATCH_NOW'];
const LOCATIONS: Record<string, string[]> = {
  US: ['6252001'],
  GB: ['2635167'],
  DE: ['2921044'],
  FR: ['3017382'],
  JP: ['1861060'],
};

/** Deterministic id: type prefix, advertiser ordinal and sequence keep it unique; the tail looks random. */
function makeId(prefix: string, advertiserId: string, sequence: number, prng: Prng): string {
  const ordinal = String(advertiserOrdinal(advertiserId)).padStart(2, '0');
  return `${prefix}${ordinal}${String(sequence).padStart(5, '0')}${prng.digits(19 - prefix.length - 7)}`;
}

/** ["AGE_18_24", "AGE_25_34"] -> "18-34". */
function ageLabel(ages: readonly string[]): string {
  const low = ages[0]?.split('_')[1] ?? '18';
  const high = ages[ages.length - 1]?.split('_')[2] ?? '100';
  return high === '100' ? `${low}+` : `${low}-${high}`;
}

function roundMoney(value: number): number {
  return Math.round(value * 100) / 100;
}

function randomTime(prng: Prng, from: number, to: number): number {
  return Math.floor(prng.range(from, Math.max(from + 3600, to)));
}

function campaignStatus(prng: Prng): [PrimaryStatus, string, 'ENABLE' | 'DISABLE'] {
  return prng.weighted<[PrimaryStatus, string, 'ENABLE' | 'DISABLE']>([
    [['STATUS_DELIVERY_OK', 'CAMPAIGN_STATUS_ENABLE', 'ENABLE'], 90],
    [['STATUS_DISABLE', 'CAMPAIGN_STATUS_DISABLE', 'DISABLE'], 5],
    [['STATUS_DELETE', 'CAMPAIGN_STATUS_DELETE', 'DISABLE'], 3],
    [['STATUS_NOT_DELIVERY', 'CAMPAIGN_STATUS_BUDGET_EXCEED', 'ENABLE'], 2],
  ]);
}

/**
 * The secondary status a child inherits: CAMPAIGN_STATUS_DISABLE -> ADGROUP_STATUS_CAMPAIGN_DISABLE,
 * ADGROUP_STATUS_CAMPAIGN_DISABLE -> AD_STATUS_CAMPAIGN_DISABLE, ADGROUP_STATUS_TIME_DONE -> AD_STATUS_ADGROUP_TIME_DONE.
 */
function inheritedSecondary(kind: 'ADGROUP' | 'AD', parentSecondary: string): string {
  const [level, rest] = parentSecondary.split('_STATUS_') as [string, string];
  if (rest.startsWith('CAMPAIGN_')) return `${kind}_STATUS_${rest}`;
  return `${kind}_STATUS_${level}_${rest.replace('BUDGET_', '')}`;
}

/** A child's status: a deleted or paused parent decides it; otherwise its own roll does. */
function childStatus(
  prng: Prng,
  kind: 'ADGROUP' | 'AD',
  parent: { primary: PrimaryStatus; secondary: string },
  own: readonly (readonly [[PrimaryStatus, string], number])[],
): [PrimaryStatus, string, 'ENABLE' | 'DISABLE'] {
  const [ownPrimary, ownSecondary] = prng.weighted(own);
  const operation = ownPrimary === 'STATUS_DISABLE' || ownPrimary === 'STATUS_DELETE' ? 'DISABLE' : 'ENABLE';
  if (parent.primary === 'STATUS_DELETE')
    return ['STATUS_DELETE', inheritedSecondary(kind, parent.secondary), operation];
  if (ownPrimary === 'STATUS_DELETE' || ownPrimary === 'STATUS_DISABLE') return [ownPrimary, ownSecondary, operation];
  if (parent.primary !== 'STATUS_DELIVERY_OK') {
    return ['STATUS_NOT_DELIVERY', inheritedSecondary(kind, parent.secondary), operation];
  }
  return [ownPrimary, ownSecondary, operation];
}

const ADGROUP_OWN: readonly (readonly [[PrimaryStatus, string], number])[] = [
  [['STATUS_DELIVERY_OK', 'ADGROUP_STATUS_DELIVERY_OK'], 93],
  [['STATUS_DISABLE', 'ADGROUP_STATUS_DISABLE'], 4],
  [['STATUS_DELETE', 'ADGROUP_STATUS_DELETE'], 2],
  [['STATUS_NOT_DELIVERY', 'ADGROUP_STATUS_TIME_DONE'], 1],
];
const AD_OWN: readonly (readonly [[PrimaryStatus, string], number])[] = [
  [['STATUS_DELIVERY_OK', 'AD_STATUS_DELIVERY_OK'], 94],
  [['STATUS_DISABLE', 'AD_STATUS_DISABLE'], 3],
  [['STATUS_DELETE', 'AD_STATUS_DELETE'], 1],
  [['STATUS_NOT_DELIVERY', 'AD_STATUS_AUDIT_DENY'], 2],
];

/**
 * Builds one advertiser's campaigns, ad groups and ads from its id alone: 8-20 campaigns, 2-4 ad groups
 * each, 160-300 ads in all. Same id, same tree, on every run and machine.
 */
export function generateAdvertiserTree(advertiser: SandboxAdvertiser): AdvertiserTree {
  const advertiserId = advertiser.advertiser_id;
  const prng = new Prng(`tree:${advertiserId}`);
  const factor = currencyFactor(advertiser.currency);
  const base = { advertiser_id: advertiserId };
  const campaigns: CampaignModel[] = [];
  const adgroups: AdGroupModel[] = [];
  const ads: AdModel[] = [];

  const campaignCount = prng.int(8, 20);
  let adgroupSequence = 0;
  for (let c = 0; c < campaignCount; c++) {
    const objective = prng.weighted(OBJECTIVES);
    const [primary, secondary, operation] = campaignStatus(prng);
    const createdAt = randomTime(
      prng,
      advertiser.create_time + 30 * SECONDS_PER_DAY,
      LATEST_CREATE - 60 * SECONDS_PER_DAY,
    );
    const budgetMode = prng.weighted([
      ['BUDGET_MODE_DAY', 6],
      ['BUDGET_MODE_TOTAL', 2],
      ['BUDGET_MODE_INFINITE', 2],
    ] as const);
    const budget = budgetMode === 'BUDGET_MODE_INFINITE' ? 0 : roundMoney(prng.int(5, 500) * 10 * factor);
    const year = new Date(createdAt * 1000).getUTCFullYear();
    const campaign: CampaignModel = {
      primary,
      secondary,
      createdAt,
      record: {
        ...base,
        campaign_id: makeId('17', advertiserId, c + 1, prng),
        campaign_name: `${advertiser.country} | ${objective} | ${prng.pick(THEMES)} ${year}`,
        campaign_type: 'REGULAR_CAMPAIGN',
        objective_type: objective,
        objective: 'LANDING_PAGE',
        app_promotion_type: objective === 'APP_PROMOTION' ? 'APP_INSTALL' : 'UNSET',
        budget,
        budget_mode: budgetMode,
        budget_optimize_on: prng.chance(0.3),
        operation_status: operation,
        secondary_status: secondary,
        is_new_structure: true,
        is_smart_performance_campaign: prng.chance(0.15),
        is_search_campaign: false,
        is_advanced_dedicated_campaign: false,
        rf_campaign_type: 'STANDARD',
        deep_bid_type: null,
        roas_bid: 0,
        special_industries: [],
        create_time: formatDateTime(createdAt),
        modify_time: formatDateTime(randomTime(prng, createdAt, LATEST_MODIFY)),
      },
    };
    campaigns.push(campaign);

    const adgroupCount = prng.int(2, 4);
    for (let g = 0; g < adgroupCount; g++) {
      adgroupSequence += 1;
      const [gPrimary, gSecondary, gOperation] = childStatus(prng, 'ADGROUP', { primary, secondary }, ADGROUP_OWN);
      const gCreatedAt = randomTime(prng, createdAt, createdAt + 20 * SECONDS_PER_DAY);
      const [goal, billing] = OPTIMIZATION[objective];
      const custom = prng.chance(0.35);
      const audience = prng.pick(AUDIENCES);
      const ages = prng.pick(AGE_SETS);
      const adgroupBudget = budgetMode === 'BUDGET_MODE_INFINITE' ? roundMoney(prng.int(2, 100) * 10 * factor) : 0;
      const adgroup: AdGroupModel = {
        campaign,
        primary: gPrimary,
        secondary: gSecondary,
        createdAt: gCreatedAt,
        record: {
          ...base,
          campaign_id: campaign.record.campaign_id,
          campaign_name: campaign.record.campaign_name,
          adgroup_id: makeId('18', advertiserId, adgroupSequence, prng),
          adgroup_name: `${audience} | ${ageLabel(ages)} | ${prng.pick(['iOS', 'Android', 'All devices'])}`,
          promotion_type: objective === 'APP_PROMOTION' ? 'APP_ANDROID' : 'WEBSITE',
          placement_type: prng.chance(0.7) ? 'PLACEMENT_TYPE_AUTOMATIC' : 'PLACEMENT_TYPE_NORMAL',
          placements: ['PLACEMENT_TIKTOK'],
          location_ids: LOCATIONS[advertiser.country] ?? ['6252001'],
          languages: [advertiser.language],
          gender: prng.pick(['GENDER_UNLIMITED', 'GENDER_UNLIMITED', 'GENDER_FEMALE', 'GENDER_MALE']),
          age_groups: ages,
          audience_ids: audience.startsWith('Lookalike') || audience === 'Website Visitors' ? [prng.digits(9)] : [],
          optimization_goal: goal,
          billing_event: billing,
          bid_type: custom ? 'BID_TYPE_CUSTOM' : 'BID_TYPE_NO_BID',
          bid_price: custom ? roundMoney(prng.range(0.2, 3) * factor) : 0,
          conversion_bid_price: custom && billing === 'OCPM' ? roundMoney(prng.range(5, 40) * factor) : 0,
          budget: adgroupBudget,
          budget_mode: budgetMode === 'BUDGET_MODE_INFINITE' ? 'BUDGET_MODE_DAY' : 'BUDGET_MODE_INFINITE',
          pacing: 'PACING_MODE_SMOOTH',
          schedule_type: 'SCHEDULE_FROM_NOW',
          schedule_start_time: formatDateTime(gCreatedAt),
          schedule_end_time: formatDateTime(gCreatedAt + 10 * 365 * SECONDS_PER_DAY),
          operation_status: gOperation,
          secondary_status: gSecondary,
          is_new_structure: true,
          create_time: formatDateTime(gCreatedAt),
          modify_time: formatDateTime(randomTime(prng, gCreatedAt, LATEST_MODIFY)),
        },
      };
      adgroups.push(adgroup);
    }
  }

  // Ads are spread over the ad groups (at least one each) so the total lands in 160-300.
  const adTotal = Math.max(prng.int(160, 300), adgroups.length);
  const perAdgroup = adgroups.map(() => 1);
  for (let extra = adgroups.length; extra < adTotal; extra++) {
    const index = Math.floor(prng.next() * adgroups.length);
    perAdgroup[index] = (perAdgroup[index] ?? 0) + 1;
  }
  let adSequence = 0;
  adgroups.forEach((adgroup, index) => {
    const count = perAdgroup[index] ?? 1;
    for (let a = 0; a < count; a++) {
      adSequence += 1;
      const [primary, secondary, operation] = childStatus(
        prng,
        'AD',
        { primary: adgroup.primary, secondary: adgroup.secondary },
        AD_OWN,
      );
      const createdAt = randomTime(prng, adgroup.createdAt, adgroup.createdAt + 30 * SECONDS_PER_DAY);
      const creative = prng.pick(CREATIVES);
      const campaign = adgroup.campaign;
      const adId = makeId('19', advertiserId, adSequence, prng);
      ads.push({
        adgroup,
        campaign,
        primary,
        secondary,
        createdAt,
        createDay: Math.floor(createdAt / SECONDS_PER_DAY),
        delivering: primary === 'STATUS_DELIVERY_OK',
        profile: {
          impressions: Math.exp(prng.range(Math.log(400), Math.log(40_000))),
          ctr: prng.range(0.004, 0.035),
          cpmUsd: prng.range(3, 14),
          cvr: prng.range(0.01, 0.12),
          playRate: prng.range(0.3, 0.7),
          payRate: prng.range(0.2, 0.6),
          orderValueUsd: prng.range(18, 140),
        },
        record: {
          ...base,
          campaign_id: campaign.record.campaign_id,
          campaign_name: campaign.record.campaign_name,
          adgroup_id: adgroup.record.adgroup_id,
          adgroup_name: adgroup.record.adgroup_name,
          ad_id: adId,
          ad_name: `${creative} ${String(a + 1).padStart(2, '0')} - ${prng.pick(HOOKS)}`,
          ad_format: prng.chance(0.9) ? 'SINGLE_VIDEO' : 'CAROUSEL_ADS',
          ad_text: prng.pick(AD_TEXTS),
          call_to_action: prng.pick(CALLS_TO_ACTION),
          landing_page_url: `https://shop.example.com/${advertiser.country.toLowerCase()}/p/${prng.digits(6)}?utm_source=tiktok`,
          display_name: advertiser.name,
          identity_type: creative === 'Spark Ad' ? 'AUTH_CODE' : 'CUSTOMIZED_USER',
          identity_id: prng.digits(19),
          video_id: `v10033g50000${prng.digits(8)}`,
          image_ids: [],
          tracking_pixel_id: Number(prng.digits(16)),
          is_aco: false,
          is_new_structure: true,
          creative_authorized: creative === 'Spark Ad',
          operation_status: operation,
          secondary_status: secondary,
          create_time: formatDateTime(createdAt),
          modify_time: formatDateTime(randomTime(prng, createdAt, LATEST_MODIFY)),
        },
      });
    }
  });

  // The list endpoints answer newest first.
  const newestFirst = (a: { createdAt: number }, b: { createdAt: number }) => b.createdAt - a.createdAt;
  campaigns.sort(newestFirst);
  adgroups.sort(newestFirst);
  ads.sort(newestFirst);
  return { advertiser, currencyFactor: factor, campaigns, adgroups, ads };
}
