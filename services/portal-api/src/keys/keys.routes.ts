import {
  StoreError,
  type ApiKeyChanges,
  type ApiKeySummary,
  type ConnectionRecord,
  type ProviderId,
} from '@gateway/store';
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
    account_ids: z.array(z.string()).meta({
      description: "The key's connections; for a key that follows connections, the customer's current ones",
    }),
    follows_connections: z.boolean().meta({
      description:
        "The key's connections are all the customer's connections of its providers, granted later ones included " +
        '(OAuth keys, until the customer narrows them)',
    }),
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

/** A following key's connections: the customer's connections of its providers that are not revoked. */
function followedAccounts(key: Pick<ApiKeySummary, 'providers'>, connections: readonly ConnectionRecord[]): string[] {
  return connections
    .filter((c) => c.status !== 'revoked' && key.providers.includes(c.provider))
    .map((c) => c.account_id);
}

/** `connections`: the customer's, to show what a following key reaches now. */
function toKey(key: ApiKeySummary, connections: readonly ConnectionRecord[]): z.infer<typeof KeySchema> {
  return {
    key_id: key.key_id,
    name: key.name,
    source: key.source,
    status: key.status,
    providers: key.providers,
    account_ids: key.follows_connections ? followedAccounts(key, connections) : key.account_ids,
    follows_connections: key.follows_connections,
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
        const { customerId } = signedIn(ctx);
        const [keys, connections] = await Promise.all([
          deps.store.apiKeys.listByCustomer(customerId),
          deps.store.connections.listByCustomer(customerId),
        ]);
        return { keys: keys.reverse().map((key) => toKey(key, connections)) };
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
        return { key: toKey(created.key, connections), secret: created.secret };
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
        const { customerId } = signedIn(ctx);
        const key = await ownKey(customerId, ctx.params.key_id);
        if (key.status !== 'active') throw new PortalError('not_found', `key ${key.key_id} is not active`);
        const rotated = await deps.lifecycle.rotate(key.key_id);
        if (rotated === null) throw new PortalError('not_found', `key ${key.key_id} is not active`);
        const connections = await deps.store.connections.listByCustomer(customerId);
        return {
          key: toKey(rotated.key, connections),
          secret: rotated.secret,
          replaced_key_id: rotated.replaced.key_id,
        };
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
        const { customerId } = signedIn(ctx);
        const key = await ownKey(customerId, ctx.params.key_id);
        const revoked = await deps.lifecycle.revoke(key.key_id);
        if (revoked === null) throw new PortalError('not_found', `no key ${key.key_id}`);
        return { key: toKey(revoked, await deps.store.connections.listByCustomer(customerId)) };
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
        const { customerId } = signedIn(ctx);
        const key = await ownKey(customerId, ctx.params.key_id);
        const updated = await asInvalidRequest(
          () => deps.store.apiKeys.setIpAllowlist(key.key_id, ctx.body.ip_allowlist),
          'ip_allowlist',
        );
        if (updated === null) throw new PortalError('not_found', `key ${key.key_id} is not active`);
        await deps.lifecycle.changed(updated.key_id);
        return { key: toKey(updated, await deps.store.connections.listByCustomer(customerId)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/keys/:key_id',
      operationId: 'updateKey',
      summary:
        "Edits an active key's name, providers, connections or IP allowlist; every edge and MCP use the change from " +
        'the moment this answers. Sending account_ids narrows a key that follows connections (it stops following); ' +
        'follows_connections: true makes it follow all of them again',
      tag: 'keys',
      auth: 'session',
      params: KeyParams,
      body: z.strictObject({
        name: z.string().trim().min(1, 'is required').max(200).optional(),
        providers: z.array(ProviderIdSchema).min(1, 'choose at least one provider').optional(),
        account_ids: z.array(AccountIdSchema).optional(),
        ip_allowlist: IpAllowlistSchema.optional(),
        follows_connections: z
          .boolean()
          .optional()
          .meta({ description: "true: the key's connections are all the customer's connections of its providers" }),
      }),
      status: 200,
      response: KeyResponse,
      errors: ['not_found', 'provider_not_in_plan'],
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const key = await ownKey(customerId, ctx.params.key_id);
        if (key.status !== 'active') throw new PortalError('not_found', `key ${key.key_id} is not active`);
        const body = ctx.body;
        const invalid = (path: string, message: string) =>
          new PortalError('invalid_request', message, { errors: [{ path, message }] });
        if (body.follows_connections === true && body.account_ids !== undefined) {
          throw invalid('account_ids', 'a key that follows connections has all of them: leave account_ids out');
        }
        if (body.providers !== undefined) {
          const customer = await deps.store.customers.findById(customerId);
          const plan = customer ? await deps.store.plans.findByName(customer.plan) : null;
          if (plan === null) throw new Error(`customer ${customerId} has no plan`);
          const outside = body.providers.filter((provider) => !plan.providers.includes(provider));
          if (outside.length > 0) {
            throw new PortalError('provider_not_in_plan', `not in the plan: ${outside.join(', ')}`);
          }
        }
        const providers = (body.providers ?? key.providers) as ProviderId[];
        const connections = await deps.store.connections.listByCustomer(customerId);
        const providerOf = new Map(connections.map((c) => [c.account_id, c.provider] as const));
        const changes: ApiKeyChanges = {};
        if (body.name !== undefined) changes.name = body.name;
        if (body.providers !== undefined) changes.providers = providers;
        if (body.ip_allowlist !== undefined) changes.ip_allowlist = body.ip_allowlist;
        if (body.follows_connections !== undefined) changes.follows_connections = body.follows_connections;
        if (body.account_ids !== undefined) {
          // Spec 5.1 rule 3: only the customer's own connections, and only of the key's providers.
          for (const accountId of body.account_ids) {
            const provider = providerOf.get(accountId);
            if (provider === undefined) throw invalid('account_ids', `${accountId} is not one of your connections`);
            if (!providers.includes(provider)) {
              throw invalid('account_ids', `${accountId} is a ${provider} connection; add that provider or drop it`);
            }
          }
          changes.account_ids = body.account_ids;
          // Choosing connections narrows a key that followed them all (issue 15).
          changes.follows_connections = false;
        } else if (key.follows_connections && body.follows_connections === false) {
          // Stops following with the connections it reaches now, so nothing changes until the customer narrows.
          changes.account_ids = followedAccounts({ providers }, connections);
        } else if (body.providers !== undefined && !key.follows_connections) {
          // A provider taken off the key takes its connections with it.
          changes.account_ids = key.account_ids.filter((id) => {
            const provider = providerOf.get(id);
            return provider !== undefined && providers.includes(provider);
          });
        }
        const updated = await asInvalidRequest(
          () => deps.store.apiKeys.update(key.key_id, changes),
          changes.ip_allowlist !== undefined ? 'ip_allowlist' : 'account_ids',
        );
        if (updated === null) throw new PortalError('not_found', `key ${key.key_id} is not active`);
        // Effective on the next request on every edge and on MCP: the key's actor reloads it before we answer.
        await deps.lifecycle.changed(updated.key_id);
        return { key: toKey(updated, connections) };
      },
    }),
  ];
}
