import type { ApiUser } from '../auth/api-user.store';
import { SearchAdsWorld } from '../data/search-ads-data.generator';
import { envelope } from '../envelope';
import { campaignReport } from '../handlers/report.handler';
import { SEARCH_ADS_ORGS, type SearchAdsOrg } from '../sandbox-orgs';

/** The sandbox clock of report unit tests: 2026-11-25, so the usual November ranges are in the past. */
export const REPORT_NOW_MS = Date.UTC(2026, 10, 25, 12);

/* A report answer as the tests read it (loose on purpose: the tests check its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseRow = any;

export interface ReportAnswer {
  status: number;
  rows: LooseRow[];
  grandTotals: LooseRow;
  pagination: { totalResults: number; startIndex: number; itemsPerPage: number } | null;
  errors: { messageCode: string; message: string; field: string }[];
}

const world = new SearchAdsWorld();
const user: ApiUser = {
  clientId: 'SEARCHADS.report-runner',
  teamId: 'SEARCHADS.report-runner',
  keyId: 'report-runner',
  publicKey: undefined as unknown as ApiUser['publicKey'],
  orgIds: SEARCH_ADS_ORGS.map((org) => org.orgId),
  userId: 1,
  revoked: false,
};

/** POST /reports/campaigns straight into the handler, answered in the platform's envelope. */
export function runReport(body: unknown, org: SearchAdsOrg = SEARCH_ADS_ORGS[0] as SearchAdsOrg): ReportAnswer {
  const result = campaignReport({
    user,
    org,
    ids: {},
    query: new URLSearchParams(),
    body,
    services: { world, now: () => REPORT_NOW_MS },
  });
  const answer = envelope(result) as {
    data: { reportingDataResponse: { row: LooseRow[]; grandTotals?: LooseRow } } | null;
    pagination: ReportAnswer['pagination'];
    error: { errors: ReportAnswer['errors'] } | null;
  };
  return {
    status: result.status,
    rows: answer.data?.reportingDataResponse.row ?? [],
    grandTotals: answer.data?.reportingDataResponse.grandTotals,
    pagination: answer.pagination,
    errors: answer.error?.errors ?? [],
  };
}

/** The campaigns of an org as the generator made them. */
export function campaignsOf(org: SearchAdsOrg = SEARCH_ADS_ORGS[0] as SearchAdsOrg) {
  return world.campaigns(org);
}
