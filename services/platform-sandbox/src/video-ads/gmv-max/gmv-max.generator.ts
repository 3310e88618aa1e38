import { advertiserOrdinal, type SandboxAdvertiser } from '../sandbox-accounts';
import { hashSeed, Prng } from '../data/prng';

export type StoreStatus = 'ACTIVE' | 'INACTIVE' | 'NEW_CREATE';
export type PromotionType = 'PRODUCT' | 'LIVE';

export interface StoreModel {
  record: Record<string, unknown> & { store_id: string; store_status: StoreStatus };
  campaigns: GmvCampaignModel[];
}

export interface GmvItem {
  item_group_id: string;
  item_id: string;
  /** Typical daily product impressions; the item's size. */
  impressions: number;
  priceUsd: number;
}

export interface GmvCampaignModel {
  campaign_id: string;
  promotion: PromotionType;
  /** Epoch day of the first delivery. */
  startDay: number;
  items: GmvItem[];
  roiTarget: number;
}

/** Additive counters of GMV Max rows (money in cents of the advertiser currency). */
export const GMV_COUNTERS = [
  'cost_cents',
  'net_cost_cents',
  'orders',
  'gross_revenue_cents',
  'product_impressions',
  'product_clicks',
  'live_views',
  'live_follows',
] as const;

export type GmvCounter = (typeof GMV_COUNTERS)[number];
export const GMV_COUNTER: Record<GmvCounter, number> = Object.fromEntries(
  GMV_COUNTERS.map((name, index) => [name, index]),
) as Record<GmvCounter, number>;

const STORE_WORDS = ['Official', 'Outlet', 'Studio', 'Market', 'Collective', 'Goods', 'Supply'];
const FIRST_DELIVERY = Date.UTC(2024, 0, 1) / 86_400_000;

function makeId(prefix: string, advertiserId: string, sequence: number, prng: Prng): string {
  const ordinal = String(advertiserOrdinal(advertiserId)).padStart(2, '0');
  return `${prefix}${ordinal}${String(sequence).padStart(5, '0')}${prng.digits(19 - prefix.length - 7)}`;
}

/** 1-3 TikTok Shop stores per advertiser; the first is always ACTIVE and runs GMV Max. */
export function generateStores(advertiser: SandboxAdvertiser): StoreModel[] {
  const advertiserId = advertiser.advertiser_id;
  const prng = new Prng(`stores:${advertiserId}`);
  const count = prng.int(1, 3);
  const stores: StoreModel[] = [];
  let campaignSequence = 90_000;
  let itemSequence = 0;
  for (let s = 0; s < count; s++) {
    const status: StoreStatus =
      s === 0
        ? 'ACTIVE'
        : prng.weighted<StoreStatus>([
            ['ACTIVE', 3],
            ['INACTIVE', 1],
            ['NEW_CREATE', 1],
          ]);
    const storeId = makeId('73', advertiserId, s + 1, prng);
    const name = `${advertiser.name.replace(/^Bluefin - /, '')} ${prng.pick(STORE_WORDS)}`;
    const campaigns: GmvCampaignModel[] = [];
    if (status === 'ACTIVE') {
      const campaignCount = prng.int(1, 3);
      for (let c = 0; c < campaignCount; c++) {
        campaignSequence += 1;
        const promotion: PromotionType = c === 0 ? 'PRODUCT' : prng.pick(['PRODUCT', 'LIVE'] as const);
        const items: GmvItem[] = [];
        if (promotion === 'PRODUCT') {
          const groups = prng.int(4, 10);
          for (let g = 0; g < groups; g++) {
            itemSequence += 1;
            const groupId = makeId('172', advertiserId, itemSequence, prng);
            const skus = prng.int(1, 4);
            const priceUsd = prng.range(8, 120);
            for (let k = 0; k < skus; k++) {
              itemSequence += 1;
              items.push({
                item_group_id: groupId,
                item_id: makeId('173', advertiserId, itemSequence, prng),
                impressions: Math.exp(prng.range(Math.log(300), Math.log(20_000))),
                priceUsd: priceUsd * prng.range(0.9, 1.3),
              });
            }
          }
        }
        campaigns.push({
          campaign_id: makeId('17', advertiserId, campaignSequence, prng),
          promotion,
          startDay: FIRST_DELIVERY + prng.int(0, 200),
          items,
          roiTarget: prng.range(1.5, 6),
        });
      }
    }
    stores.push({
      campaigns,
      record: {
        store_id: storeId,
        store_name: name,
        store_code: `${advertiser.country}LC${prng.digits(5)}${String.fromCharCode(65 + prng.int(0, 25))}`,
        store_status: status,
        store_role: s === 0 ? 'AD_PROMOTION' : prng.pick(['AD_PROMOTION', 'AD_PROMOTION', 'MANAGER']),
        is_gmv_max_available: status === 'ACTIVE',
        is_owner_bc: s === 0,
        store_authorized_bc_id: advertiser.owner_bc_id,
        targeting_region_codes: [advertiser.country],
        thumbnail_url: `https://p16-oec.example.com/tos-sandbox/${prng.digits(12)}~tplv-resize:100:100.png`,
        exclusive_authorized_advertiser_info: {
          advertiser_id: advertiserId,
          advertiser_name: advertiser.name,
          advertiser_status: 'STATUS_ENABLE',
        },
      },
    });
  }
  return stores;
}

export interface GmvFact {
  campaign: GmvCampaignModel;
  /** Set for PRODUCT campaigns. */
  item?: GmvItem;
  /** Set for LIVE campaigns: one live session. */
  room?: { room_id: string; duration: number };
  counters: number[];
  seed: number;
}

/** Every GMV Max fact of one store on one day: one per item (PRODUCT) or per live session (LIVE). */
export function gmvDayFacts(store: StoreModel, epochDay: number, currencyFactor: number): GmvFact[] {
  const facts: GmvFact[] = [];
  for (const campaign of store.campaigns) {
    if (epochDay < campaign.startDay) continue;
    if (campaign.promotion === 'PRODUCT') {
      for (const item of campaign.items) {
        const seed = hashSeed(item.item_id) ^ Math.imul(epochDay, 0x9e3779b1);
        const prng = new Prng(seed);
        if (prng.chance(0.1)) continue;
        const impressions = Math.max(1, Math.round(item.impressions * prng.range(0.5, 1.5)));
        const clicks = Math.round(impressions * prng.range(0.01, 0.06));
        const orders = Math.round(clicks * prng.range(0.02, 0.12));
        const revenue = Math.round(orders * item.priceUsd * currencyFactor * 100);
        const cost = Math.round(
          (revenue / campaign.roiTarget) * prng.range(0.7, 1.3) + impressions * 0.4 * currencyFactor,
        );
        facts.push({
          campaign,
          item,
          seed,
          counters: [cost, Math.round(cost * 0.97), orders, revenue, impressions, clicks, 0, 0],
        });
      }
    } else {
      const prng = new Prng(hashSeed(campaign.campaign_id) ^ Math.imul(epochDay, 0x9e3779b1));
      const sessions = prng.int(0, 2);
      for (let n = 0; n < sessions; n++) {
        const duration = prng.int(6, 36) * 300;
        const views = Math.round(duration * prng.range(0.5, 4));
        const impressions = Math.round(views * prng.range(2, 5));
        const clicks = Math.round(views * prng.range(0.03, 0.1));
        const orders = Math.round(clicks * prng.range(0.05, 0.2));
        const revenue = Math.round(orders * prng.range(15, 80) * currencyFactor * 100);
        const cost = Math.round((revenue / campaign.roiTarget) * prng.range(0.7, 1.3) + views * 2 * currencyFactor);
        const roomId = `74${campaign.campaign_id.slice(2, 6)}${String(epochDay).padStart(6, '0')}${n}${prng.digits(6)}`;
        facts.push({
          campaign,
          room: { room_id: roomId, duration },
          seed: hashSeed(roomId),
          counters: [
            cost,
            Math.round(cost * 0.97),
            orders,
            revenue,
            impressions,
            clicks,
            views,
            Math.round(views * 0.02),
          ],
        });
      }
    }
  }
  return facts;
}
