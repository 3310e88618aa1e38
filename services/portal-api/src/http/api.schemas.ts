import { PLAN_NAMES, PROVIDER_IDS } from '@gateway/store';
import { z } from 'zod';

/** Schemas shared by several operations; each feature keeps its own next to its routes. */
export const ProviderIdSchema = z.enum(PROVIDER_IDS).meta({ id: 'ProviderId', description: 'Provider id (spec 1)' });
export const PlanNameSchema = z.enum(PLAN_NAMES).meta({ id: 'PlanName' });
export const InstantSchema = z.iso.datetime().meta({ description: 'ISO 8601 instant, UTC' });
export const KeyIdSchema = z
  .string()
  .regex(/^dg_live_[0-9A-Za-z]{8}$/, 'must be a key id')
  .meta({ description: 'Short key id (not the secret)' });
export const AccountIdSchema = z
  .string()
  .regex(/^acct_[0-9A-Za-z]{20}$/, 'must be an account id')
  .meta({ description: 'Connection account id (spec 2.2)' });

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    code: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
