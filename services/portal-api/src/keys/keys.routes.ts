import { StoreError, type ApiKeySummary, type ProviderId } from '@gateway/store';
import { z } from 'zod';
import { defineRoute, signedIn, type ApiRoute } from '../http/api-route';
import { AccountIdSchema, InstantSchema, KeyIdSchema, ProviderIdSchema, iso } from '../http/api.schemas';
import { PortalError } from '../http/portal-problem';
import type { PortalDeps } from '../portal.deps';

const IpAllowlistSchema = z
  .array(z.string().trim().min(1).max(64))
  .max(100)
  .meta({ description: 'IPv4/IPv6 addresses or CIDRs; empty means any address (spec 5.1 rule 5)' });

const KeySchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    source: z.enum(['portal', 'oauth']),
    status: z.enum(['active', 'revoked']),
    providers: z.array(ProviderIdSchema),
    account_ids: z.array(z.string()),
    ip_allowlist: z.array(z.string()),
    created_at: InstantSchema,
    last_used_at: InstantSchema.nullable(),
    revoked_at: InstantSchema.nullable(),
    replaced_by: z.string().nullable(),
  })
  .meta({ id: 'ApiKey', description: 'A key as the portal lists it: never the secret (spec 2.1)' });

const CreatedKeySchema = z
  .object({
    key: KeySchema,
    secret: z.string().meta({ description: 'The full key, shown this once and never again (spec 5.2)' }),
  })
  .meta({ id: 'CreatedApiKey' });

const KeyParams = z.object({ key_id: KeyIdSchema });
const KeyResponse = z.object({ key: KeySchema });

function toKey(key: ApiKeySummary): z.infer<typeof KeySchema> {
  return {
    key_id: key.key_id,
    name: key.name,
    source: key.source,
    status: key.status,
    providers: key.providers,
    account_ids: key.account_ids,
    ip_allowlist: key.ip_allowlist,
    created_at: key.created_at.toISOString(),
    last_used_at: iso(key.last_used_at),
    revoked_at: iso(key.revoked_at),
    replaced_by: key.replaced_by,
  };
}

/** StoreError invalid_input (bad CIDR, foreign account) is the caller's mistake: 400 with the store's message. */
async function asInvalidRequest<T>(work: () => Promise<T>, path: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreError && error.code === 'invalid_input') {
      throw new PortalError('invalid_request', error.message, { errors: [{ path, message: error.message }] });
    }
    throw error;
  }
}

export function keyRoutes(deps: PortalDeps): ApiRoute[] {
  /** The customer's own key, or 404 (another customer's key id is indistinguishable from an unknown one). */
  const ownKey = async (customerId: string, keyId: string) => {
    const key = await deps.store.apiKeys.findByKeyId(keyId);
    if (key === null || key.customer_id !== customerId) throw new PortalError('not_found', `no key ${keyId}`);
    return key;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/keys',
      operationId: 'listKeys',
      summary: 'Every key of the customer, newest first, without secrets',
      tag: 'keys',
      auth: 'session',
      status: 200,
      response: z.object({ keys: z.array(KeySchema) }),
      handler: async (ctx) => {
        const keys = await deps.store.apiKeys.listByCustomer(signedIn(ctx).customerId);
        return { keys: keys.reverse().map(toKey) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/keys',
      operationId: 'createKey',
      summary: 'Creates a key; the answer carries the full key once (spec 2.1)',
      tag: 'keys',
      auth: 'session',
      body: z.strictObject({
        name: z.string().trim().min(1, 'is required').max(200),
        providers: z.array(ProviderIdSchema).min(1, 'choose at least one provider'),
        account_ids: z.array(AccountIdSchema).default([]),
        ip_allowlist: IpAllowlistSchema.default([]),
      }),
      status: 201,
      response: CreatedKeySchema,
      errors: ['provider_not_in_plan'],
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const customer = await deps.store.customers.findById(customerId);
        const plan = customer ? await deps.store.plans.findByName(customer.plan) : null;
        if (plan === null) throw new Error(`customer ${customerId} has no plan`);
        const outside = ctx.body.providers.filter((provider) => !plan.providers.includes(provider));
        if (outside.length > 0) throw new PortalError('provider_not_in_plan', `not in the plan: ${outside.join(', ')}`);
        const connections = await deps.store.connections.listByCustomer(customerId);
        for (const accountId of ctx.body.account_ids) {
          const connection = connections.find((candidate) => candidate.account_id === accountId);
          if (connection && !ctx.body.providers.includes(connection.provider)) {
            const message = `${accountId} is a ${connection.provider} connection; add that provider or drop it`;
            throw new PortalError('invalid_request', message, { errors: [{ path: 'account_ids', message }] });
          }
        }
        const created = await asInvalidRequest(
          () =>
            deps.store.apiKeys.create({
              customer_id: customerId,
              name: ctx.body.name,
              providers: ctx.body.providers as ProviderId[],
              account_ids: ctx.body.account_ids,
              ip_allowlist: ctx.body.ip_allowlist,
            }),
          'ip_allowlist',
        );
        await deps.lifecycle.created(created.key);
        return { key: toKey(created.key), secret: created.secret };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/keys/:key_id/rotate',
      operationId: 'rotateKey',
      summary: 'Issues a new key with the same settings (shown once); the old key stops working at once (spec 3)',
      tag: 'keys',
      auth: 'session',
      params: KeyParams,
      status: 200,
      response: CreatedKeySchema.extend({ replaced_key_id: z.string() }),
      errors: ['not_found'],
      handler: async (ctx) => {
        const key = await ownKey(signedIn(ctx).customerId, ctx.params.key_id);
        if (key.status !== 'active') throw new PortalError('not_found', `key ${key.key_id} is not active`);
        const rotated = await deps.lifecycle.rotate(key.key_id);
        if (rotated === null) throw new PortalError('not_found', `key ${key.key_id} is not active`);
        return { key: toKey(rotated.key), secret: rotated.secret, replaced_key_id: rotated.replaced.key_id };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/keys/:key_id/revoke',
      operationId: 'revokeKey',
      summary: 'Revokes a key; REST refuses it from the moment this answers (spec 3)',
      tag: 'keys',
      auth: 'session',
      params: KeyParams,
      status: 200,
      response: KeyResponse,
      errors: ['not_found'],
      handler: async (ctx) => {
        const key = await ownKey(signedIn(ctx).customerId, ctx.params.key_id);
        const revoked = await deps.lifecycle.revoke(key.key_id);
        if (revoked === null) throw new PortalError('not_found', `no key ${key.key_id}`);
        return { key: toKey(revoked) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/keys/:key_id/ip-allowlist',
      operationId: 'setKeyIpAllowlist',
      summary: 'Replaces the IP allowlist of an active key (empty: any address)',
      tag: 'keys',
      auth: 'session',
      params: KeyParams,
      body: z.strictObject({ ip_allowlist: IpAllowlistSchema }),
      status: 200,
      response: KeyResponse,
      errors: ['not_found'],
      handler: async (ctx) => {
        const key = await ownKey(signedIn(ctx).customerId, ctx.params.key_id);
        const updated = await asInvalidRequest(
          () => deps.store.apiKeys.setIpAllowlist(key.key_id, ctx.body.ip_allowlist),
          'ip_allowlist',
        );
        if (updated === null) throw new PortalError('not_found', `key ${key.key_id} is not active`);
        await deps.lifecycle.changed(updated.key_id);
        return { key: toKey(updated) };
      },
    }),
  ];
}
