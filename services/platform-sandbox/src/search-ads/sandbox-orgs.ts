/**
 * The search-ads sandbox's fixed organizations (Apple Ads "orgs", one advertising account each), all under one
 * parent org. Data of an org is generated from its id, so it is the same on every run.
 */
export interface SearchAdsOrg {
  orgId: number;
  orgName: string;
  currency: 'USD' | 'EUR' | 'GBP';
  timeZone: string;
  paymentModel: 'PAYG' | 'LOC';
  /** Storefronts its campaigns run in. */
  countries: readonly string[];
}

export const PARENT_ORG_ID = 40_669_800;

export const SEARCH_ADS_ORGS: readonly SearchAdsOrg[] = [
  {
    orgId: 40_669_820,
    orgName: 'Northwind Apps US',
    currency: 'USD',
    timeZone: 'America/Los_Angeles',
    paymentModel: 'PAYG',
    countries: ['US', 'CA', 'MX'],
  },
  {
    orgId: 40_669_821,
    orgName: 'Northwind Apps Europe',
    currency: 'EUR',
    timeZone: 'Europe/Berlin',
    paymentModel: 'LOC',
    countries: ['DE', 'FR', 'ES', 'IT', 'NL'],
  },
  {
    orgId: 51_203_377,
    orgName: 'Pixel Pantry Games UK',
    currency: 'GBP',
    timeZone: 'Europe/London',
    paymentModel: 'PAYG',
    countries: ['GB', 'IE'],
  },
];

export function findOrg(orgId: number): SearchAdsOrg | undefined {
  return SEARCH_ADS_ORGS.find((org) => org.orgId === orgId);
}
