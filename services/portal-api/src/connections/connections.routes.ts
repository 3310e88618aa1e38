import { GrantExchangeError, type GrantedAccount, type PlatformGrant } from '@gateway/platform-grants';
import { isProviderId, type ConnectionRecord, type ProviderId } from '@gateway/store';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineRoute, signedIn, type ApiRoute } from '../http/api-route';
import { AccountIdSchema, InstantSchema, ProviderIdSchema } from '../http/api.schemas';
import { PortalError } from '../http/portal-problem';
import type { PortalDeps } from '../portal.deps';

export const CALLBACK_PATH = '/api/connections/callback';

export const ConnectionSchema = z
  .object({
    account_id: z.string().meta({ description: 'The id to send as X-Account-Id; stable across re-grants (spec 2.2)' }),
    provider: ProviderIdSchema,
    status: z.enum(['active', 'revoked', 'needs_regrant']),
    external_account_ids: z.array(z.string()),
    granted_at: InstantSchema,
    created_at: InstantSchema,
  })
  .meta({ id: 'Connection' });

const GrantStartedSchema = z
  .object({
    authorization_url: z.url().meta({ description: "The platform's authorization page; send the browser there" }),
  })
  .meta({ id: 'GrantStarted' });

export function toConnection(record: ConnectionRecord): z.infer<typeof ConnectionSchema> {
  return {
    account_id: record.account_id,
    provider: record.provider,
    status: record.status,
    external_account_ids: record.external_account_ids,
    granted_at: record.granted_at.toISOString(),
    created_at: record.created_at.toISOString(),
  };
}

function sameAccounts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** The customer's plan and how many of its connections count against the allowance. */
export async function connectionAllowance(deps: PortalDeps, customerId: string) {
  const customer = await deps.store.customers.findById(customerId);
  const plan = customer ? await deps.store.plans.findByName(customer.plan) : null;
  if (plan === null) throw new Error(`customer ${customerId} has no plan`);
  return { plan, used: await deps.store.connections.countByCustomer(customerId) };
}

/** Spec 1 and 8: every granted account is one connection; one shop granted to two apps (providers) is two. */
export async function requireConnectionRoom(deps: PortalDeps, customerId: string) {
  const { plan, used } = await connectionAllowance(deps, customerId);
  if (used >= plan.connection_allowance) {
    throw new PortalError(
      'connection_limit_reached',
      `the ${plan.name} plan allows ${plan.connection_allowance} connections`,
      { allowance: plan.connection_allowance, used },
    );
  }
  return plan;
}

export function connectionRoutes(deps: PortalDeps): ApiRoute[] {
  // Providers whose grant the portal can run (one plug-in each, then the key-pair flows); the others are listed but
  // not connectable.
  const grantable: readonly ProviderId[] = [
    ...deps.grants.map((grant) => grant.provider),
    ...deps.keyPairFlows.map((flow) => flow.provider),
  ].filter(isProviderId);
  const grantOf = (provider: ProviderId): PlatformGrant | undefined =>
    deps.grants.find((grant) => grant.provider === provider);

  const allowanceOf = (customerId: string) => connectionAllowance(deps, customerId);
  const requireRoom = (customerId: string) => requireConnectionRoom(deps, customerId);

  const startGrant = async (sessionId: string, provider: ProviderId, accountId: string | null) => {
    const grant = grantOf(provider);
    const keyPair = deps.keyPairFlows.find((flow) => flow.provider === provider);
    if (grant === undefined && keyPair !== undefined) {
      // No redirect flow: the customer registers a key pair of the portal (the provider's folder, key-pair-flow.ts).
      throw new PortalError('grant_not_supported', `${provider} connects with a key pair: POST ${keyPair.startPath}`);
    }
    if (grant === undefined) throw new PortalError('grant_not_supported', `provider ${provider}`);
    const state = randomBytes(32).toString('base64url');
    await deps.sessions.startGrant(sessionId, state, { provider, account_id: accountId }, deps.grantTtlMs);
    const redirectUri = `${deps.publicOrigin()}${CALLBACK_PATH}`;
    return { authorization_url: grant.authorizationUrl(state, redirectUri) };
  };

  /**
   * Creates or renews the connections of a completed grant. Spec 3: a renewal keeps the account id and makes
   * the connection active again. A re-grant started from a connection renews that connection (by the plug-in's
   * rule), and any other connection of the customer the grant covers; it creates none. A new grant renews the
   * connections of the same provider and external accounts, and creates the others while the plan has room.
   */
  const applyGrant = async (
    customerId: string,
    pending: { provider: ProviderId; account_id: string | null },
    plugin: PlatformGrant,
    accounts: readonly GrantedAccount[],
  ): Promise<Record<string, string>> => {
    const existing = (await deps.store.connections.listByCustomer(customerId)).filter(
      (c) => c.provider === pending.provider,
    );
    const sameAs = (account: GrantedAccount) =>
      existing.find((c) => sameAccounts(c.external_account_ids, account.externalAccountIds));
    const done: string[] = [];
    let created = 0;
    let remaining = [...accounts];

    if (pending.account_id !== null) {
      const target = existing.find((c) => c.account_id === pending.account_id);
      if (target === undefined) return { error: 'invalid_state' };
      const own =
        remaining.find((account) => sameAccounts(account.externalAccountIds, target.external_account_ids)) ??
        (plugin.regrantMatch === 'grant' && remaining.length === 1 ? remaining[0] : undefined);
      // The seller granted other accounts than this connection's (another seller on the platform's page).
      if (own === undefined) return { error: 'other_account' };
      await deps.store.connections.regrant(target.account_id, own.credentials, own.externalAccountIds);
      done.push(target.account_id);
      remaining = remaining.filter((account) => account !== own);
    }

    let limited = false;
    for (const account of remaining) {
      const renewed = sameAs(account);
      if (renewed !== undefined) {
        if (done.includes(renewed.account_id)) continue;
        await deps.store.connections.regrant(renewed.account_id, account.credentials, account.externalAccountIds);
        done.push(renewed.account_id);
        continue;
      }
      if (pending.account_id !== null) continue;
      try {
        await requireRoom(customerId);
      } catch (error) {
        if (error instanceof PortalError) {
          limited = true;
          break;
        }
        throw error;
      }
      const connection = await deps.store.connections.create({
        customer_id: customerId,
        provider: pending.provider,
        external_account_ids: account.externalAccountIds,
        credentials: account.credentials,
      });
      done.push(connection.account_id);
      created += 1;
    }

    const outcome: Record<string, string> = {};
    if (done.length > 0) outcome.connected = done.join(',');
    if (done.length > 0 && created === 0) outcome.regranted = '1';
    if (limited) outcome.error = 'connection_limit_reached';
    return outcome;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/connections',
      operationId: 'listConnections',
      summary: 'The connections of the customer with their account ids, and the plan allowance',
      tag: 'connections',
      auth: 'session',
      status: 200,
      response: z.object({
        connections: z.array(ConnectionSchema),
        allowance: z.number().int(),
        used: z.number().int(),
        grantable_providers: z.array(ProviderIdSchema),
      }),
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const { plan, used } = await allowanceOf(customerId);
        const connections = await deps.store.connections.listByCustomer(customerId);
        return {
          connections: connections.map(toConnection),
          allowance: plan.connection_allowance,
          used,
          grantable_providers: grantable.filter((provider) => plan.providers.includes(provider)),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/connections/grants',
      operationId: 'startGrant',
      summary: "Starts a grant: answers the platform's authorization page, which comes back to the callback",
      tag: 'connections',
      auth: 'session',
      body: z.strictObject({ provider: ProviderIdSchema }),
      status: 201,
      response: GrantStartedSchema,
      errors: ['connection_limit_reached', 'provider_not_in_plan', 'grant_not_supported'],
      handler: async (ctx) => {
        const session = signedIn(ctx);
        const plan = await requireRoom(session.customerId);
        if (!plan.providers.includes(ctx.body.provider)) throw new PortalError('provider_not_in_plan');
        return startGrant(session.sessionId, ctx.body.provider, null);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/connections/:account_id/regrant',
      operationId: 'startRegrant',
      summary: 'Starts a re-grant of a connection; it keeps its account id (spec 3)',
      tag: 'connections',
      auth: 'session',
      params: z.object({ account_id: AccountIdSchema }),
      status: 201,
      response: GrantStartedSchema,
      errors: ['not_found', 'grant_not_supported'],
      handler: async (ctx) => {
        const session = signedIn(ctx);
        const connection = await deps.store.connections.findByAccountId(ctx.params.account_id);
        if (connection === null || connection.customer_id !== session.customerId) {
          throw new PortalError('not_found', `no connection ${ctx.params.account_id}`);
        }
        return startGrant(session.sessionId, connection.provider, connection.account_id);
      },
    }),
    defineRoute({
      method: 'get',
      path: CALLBACK_PATH,
      operationId: 'grantCallback',
      summary:
        "The platform's redirect target: exchanges the code, creates or re-grants the connections it covers, then " +
        'redirects the browser to /connections with connected=<account ids, comma-separated> and/or error=<reason>',
      tag: 'connections',
      auth: 'none',
      query: z.object({
        state: z.string().max(512).optional(),
        auth_code: z.string().max(512).optional(),
        code: z.string().max(512).optional(),
        // The shop the owner approved, which some platforms add beside the code (the plug-in checks it).
        shop_id: z.string().max(32).optional(),
      }),
      status: 302,
      handler: async (ctx) => {
        const back = (outcome: Record<string, string>) => {
          ctx.res.redirect(302, `/connections?${new URLSearchParams(outcome).toString()}`);
          return undefined;
        };
        if (ctx.session === null) return back({ error: 'signed_out' });
        // The state must be the one this browser session started (OAuth CSRF protection), and is taken once.
        const pending = await deps.sessions.takeGrant(ctx.session.sessionId, ctx.query.state);
        if (pending === null) return back({ error: 'invalid_state' });
        // Platforms answer auth_code or code (the plug-in reads its own); without either the customer declined.
        if (!ctx.query.auth_code && !ctx.query.code) return back({ error: 'denied' });
        const plugin = grantOf(pending.provider);
        if (plugin === undefined) return back({ error: 'grant_failed' });
        let accounts: GrantedAccount[];
        try {
          accounts = await plugin.exchange(ctx.query);
        } catch (error) {
          if (error instanceof GrantExchangeError) return back({ error: 'grant_failed' });
          throw error;
        }
        if (accounts.length === 0) return back({ error: 'no_accounts' });
        const outcome = await applyGrant(ctx.session.customerId, pending, plugin, accounts);
        // Keys that follow the customer's connections (OAuth keys) use a new or renewed one on the next request.
        if (outcome.connected !== undefined) await deps.lifecycle.connectionsChanged(ctx.session.customerId);
        return back(outcome);
      },
    }),
  ];
}
