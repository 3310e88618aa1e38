import { findAdvertiser, SANDBOX_BUSINESS_CENTERS, type SandboxAdvertiser } from '../sandbox-accounts';
import { checkAdvertiser, type CallContext } from '../call-context';
import { currencyFactor } from '../data/advertiser-tree.generator';
import { Prng } from '../data/prng';
import { ok, type ApiResult } from '../envelope';
import { project } from './projection';

function mask(text: string): string {
  return text.length <= 2 ? '*' : `${text[0]}***${text[text.length - 1]}`;
}

/** The platform's advertiser record: account facts from the fixed world, balance and contacts generated. */
export function advertiserRecord(advertiser: SandboxAdvertiser): Record<string, unknown> {
  const prng = new Prng(`info:${advertiser.advertiser_id}`);
  const factor = currencyFactor(advertiser.currency);
  const domain = advertiser.company.toLowerCase().replace(/[^a-z]+/g, '') + '.example.com';
  return {
    advertiser_id: advertiser.advertiser_id,
    name: advertiser.name,
    company: advertiser.company,
    status: 'STATUS_ENABLE',
    role: advertiser.role,
    currency: advertiser.currency,
    timezone: advertiser.timezone,
    display_timezone: advertiser.display_timezone,
    country: advertiser.country,
    language: advertiser.language,
    balance: Math.round(prng.range(500, 25_000) * factor * 100) / 100,
    create_time: advertiser.create_time,
    owner_bc_id: advertiser.owner_bc_id,
    industry: advertiser.industry,
    address: `${prng.int(1, 999)} Market Street`,
    contacter: mask('Alex Morgan'),
    email: `${mask('marketing')}@${domain}`,
    telephone_number: `+${prng.int(1, 99)} ******${prng.digits(4)}`,
    cellphone_number: `+${prng.int(1, 99)} ******${prng.digits(4)}`,
    description: `${advertiser.company} advertising account`,
    brand: advertiser.name.replace(/^Bluefin - /, ''),
    license_no: '',
    license_url: '',
    rejection_reason: '',
    promotion_area: '0',
    promotion_center_province: null,
    promotion_center_city: null,
  };
}

const FIELDS = new Set(Object.keys(advertiserRecord(SANDBOX_BUSINESS_CENTERS[0]?.advertisers[0] as SandboxAdvertiser)));

/** GET /advertiser/info/?advertiser_ids=[...]&fields=[...] */
export function advertiserInfo(ctx: CallContext): ApiResult {
  const ids = ctx.params.stringArray('advertiser_ids', { max: 100 });
  const fields = ctx.params.fields(FIELDS);
  if (ctx.params.error) return ctx.params.error;
  const unique = [...new Set(ids)];
  for (const id of unique) {
    const denied = checkAdvertiser(ctx, id);
    if (denied) return denied;
  }
  const list = unique.map((id) => project(advertiserRecord(findAdvertiser(id) as SandboxAdvertiser), fields));
  return ok({ list });
}
