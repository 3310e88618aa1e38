/**
 * The sandbox's fixed world: business centers and the advertiser accounts in them. A person picks one
 * business center on the authorization page; the grant then covers its advertisers. Everything else
 * (campaigns, ads, stores, reports) is generated from these ids, so it is the same on every run.
 */
export interface SandboxAdvertiser {
  advertiser_id: string;
  name: string;
  company: string;
  currency: string;
  timezone: string;
  display_timezone: string;
  country: string;
  language: string;
  industry: string;
  role: 'ROLE_ADVERTISER' | 'ROLE_CHILD_ADVERTISER';
  /** Unix seconds. */
  create_time: number;
  owner_bc_id: string;
}

export interface SandboxBusinessCenter {
  bc_id: string;
  name: string;
  advertisers: readonly SandboxAdvertiser[];
}

type AdvertiserSeed = Omit<SandboxAdvertiser, 'owner_bc_id' | 'display_timezone'>;

function businessCenter(bc_id: string, name: string, advertisers: AdvertiserSeed[]): SandboxBusinessCenter {
  return {
    bc_id,
    name,
    advertisers: advertisers.map((advertiser) => ({
      ...advertiser,
      display_timezone: advertiser.timezone,
      owner_bc_id: bc_id,
    })),
  };
}

export const SANDBOX_BUSINESS_CENTERS: readonly SandboxBusinessCenter[] = [
  businessCenter('7182654093817356289', 'Northwind Retail Group', [
    {
      advertiser_id: '7291830415526379521',
      name: 'Northwind US',
      company: 'Northwind Retail Inc.',
      currency: 'USD',
      timezone: 'America/Los_Angeles',
      country: 'US',
      language: 'en',
      industry: '291905',
      role: 'ROLE_ADVERTISER',
      create_time: 1663286400,
    },
    {
      advertiser_id: '7291830415526379522',
      name: 'Northwind UK',
      company: 'Northwind Retail Ltd.',
      currency: 'GBP',
      timezone: 'Europe/London',
      country: 'GB',
      language: 'en',
      industry: '291905',
      role: 'ROLE_ADVERTISER',
      create_time: 1668816000,
    },
    {
      advertiser_id: '7291830415526379523',
      name: 'Northwind DE',
      company: 'Northwind Handel GmbH',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
      country: 'DE',
      language: 'de',
      industry: '291905',
      role: 'ROLE_ADVERTISER',
      create_time: 1675209600,
    },
  ]),
  businessCenter('7204418870063251458', 'Bluefin Media Agency', [
    {
      advertiser_id: '7316047235881140225',
      name: 'Bluefin - Coastal Coffee',
      company: 'Coastal Coffee Roasters LLC',
      currency: 'USD',
      timezone: 'America/New_York',
      country: 'US',
      language: 'en',
      industry: '290704',
      role: 'ROLE_CHILD_ADVERTISER',
      create_time: 1680307200,
    },
    {
      advertiser_id: '7316047235881140226',
      name: 'Bluefin - Kumo Games',
      company: 'Kumo Games K.K.',
      currency: 'JPY',
      timezone: 'Asia/Tokyo',
      country: 'JP',
      language: 'ja',
      industry: '290201',
      role: 'ROLE_CHILD_ADVERTISER',
      create_time: 1682899200,
    },
    {
      advertiser_id: '7316047235881140227',
      name: 'Bluefin - Lumen Skincare',
      company: 'Lumen Cosmetiques SAS',
      currency: 'EUR',
      timezone: 'Europe/Paris',
      country: 'FR',
      language: 'fr',
      industry: '291102',
      role: 'ROLE_CHILD_ADVERTISER',
      create_time: 1685577600,
    },
    {
      advertiser_id: '7316047235881140228',
      name: 'Bluefin - Trailhead Outdoors',
      company: 'Trailhead Outdoors Co.',
      currency: 'USD',
      timezone: 'America/Denver',
      country: 'US',
      language: 'en',
      industry: '291907',
      role: 'ROLE_CHILD_ADVERTISER',
      create_time: 1688169600,
    },
  ]),
  businessCenter('7240912365508837377', 'Pixel Pantry', [
    {
      advertiser_id: '7352219084467503105',
      name: 'Pixel Pantry Shop',
      company: 'Pixel Pantry Foods LLC',
      currency: 'USD',
      timezone: 'America/Chicago',
      country: 'US',
      language: 'en',
      industry: '290703',
      role: 'ROLE_ADVERTISER',
      create_time: 1698796800,
    },
  ]),
];

const ADVERTISERS_BY_ID = new Map<string, SandboxAdvertiser>(
  SANDBOX_BUSINESS_CENTERS.flatMap((bc) => bc.advertisers.map((advertiser) => [advertiser.advertiser_id, advertiser])),
);

const ORDINALS = new Map<string, number>([...ADVERTISERS_BY_ID.keys()].map((id, index) => [id, index + 1]));

export function findAdvertiser(advertiserId: string): SandboxAdvertiser | undefined {
  return ADVERTISERS_BY_ID.get(advertiserId);
}

export function findBusinessCenter(bcId: string): SandboxBusinessCenter | undefined {
  return SANDBOX_BUSINESS_CENTERS.find((bc) => bc.bc_id === bcId);
}

/** Position of the advertiser in the fixed world; generated ids embed it so they never collide. */
export function advertiserOrdinal(advertiserId: string): number {
  return ORDINALS.get(advertiserId) ?? 0;
}
