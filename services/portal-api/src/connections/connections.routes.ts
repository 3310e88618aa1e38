import { GrantExchangeError, exchangeVideoAdsAuthCode, videoAdsAuthorizationUrl } from '@gateway/platform-grants';
import type { ConnectionRecord, ProviderId } from '@gateway/store';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineRoute, signedIn, type ApiRoute } from '../http/api-route';
import { AccountIdSchema, InstantSchema, ProviderIdSchema } from '../http/api.schemas';
import { PortalError } from '../http/portal-problem';
import type { PortalDeps } from '../portal.deps';

/** Providers whose grant the portal can run today; the others are listed but not yet connectable. */
export const GRANTABLE_PROVIDERS: readonly ProviderId[] = ['video-ads'];
export const CALLBACK_PATH = '/api/connections/callback';

const ConnectionSchema = z
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

function toConnection(record: ConnectionRecord): z.infer<typeof ConnectionSchema> {
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

export function connectionRoutes(deps: PortalDeps): ApiRoute[] {
  const allowanceOf = async (customerId: string) => {
    const customer = await deps.store.customers.findById(customerId);
    const plan = customer ? await deps.store.plans.findByName(customer.plan) : null;
    if (plan === null) throw new Error(`customer ${customerId} has no plan`);
    return { plan, used: await deps.store.connections.countByCustomer(customerId) };
  };

  /** Spec 1 and 8: every grant is one connection, the three marketplace apps on one shop are three. */
  const requireRoom = async (customerId: string) => {
    const { plan, used } = await allowanceOf(customerId);
    if (used >= plan.connection_allowance) {
      throw new PortalError(
        'connection_limit_reached',
        `the ${plan.name} plan allows ${plan.connection_allowance} connections`,
        { allowance: plan.connection_allowance, used },
      );
    }
    return plan;
  };

  const startGrant = async (sessionId: string, provider: ProviderId, accountId: string | null) => {
    if (!GRANTABLE_PROVIDERS.includes(provider)) throw new PortalError('grant_not_supported', `provider ${provider}`);
    const state = randomBytes(32).toString('base64url');
    await deps.sessions.startGrant(sessionId, state, { provider, account_id: accountId }, deps.grantTtlMs);
    const redirectUri = `${deps.publicOrigin()}${CALLBACK_PATH}`;
    return { authorization_url: videoAdsAuthorizationUrl(deps.videoAds, state, redirectUri) };
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
          grantable_providers: GRANTABLE_PROVIDERS.filter((provider) => plan.providers.includes(provider)),
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
        "The platform's redirect target: exchanges the code, creates or re-grants the connection, then redirects " +
        'the browser to /connections with connected=<account_id> or error=<reason>',
      tag: 'connections',
      auth: 'none',
      query: z.object({
        state: z.string().max(512).optional(),
        auth_code: z.string().max(512).optional(),
        code: z.string().max(512).optional(),
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
        const authCode = ctx.query.auth_code ?? ctx.query.code;
        if (!authCode) return back({ error: 'denied' });
        const customerId = ctx.session.customerId;
        let grant;
        try {
          grant = await exchangeVideoAdsAuthCode(deps.videoAds, authCode);
        } catch (error) {
          if (error instanceof GrantExchangeError) return back({ error: 'grant_failed' });
          throw error;
        }
        const credentials = { access_token: grant.accessToken };
        const existing = await deps.store.connections.listByCustomer(customerId);
        // A grant of accounts this customer already connected renews that connection instead of adding one.
        const renewed =
          pending.account_id !== null
            ? existing.find((c) => c.account_id === pending.account_id)
            : existing.find(
                (c) => c.provider === pending.provider && sameAccounts(c.external_account_ids, grant.advertiserIds),
              );
        if (renewed) {
          await deps.store.connections.regrant(renewed.account_id, credentials, grant.advertiserIds);
          return back({ connected: renewed.account_id, regranted: '1' });
        }
        try {
          await requireRoom(customerId);
        } catch (error) {
          if (error instanceof PortalError) return back({ error: error.code });
          throw error;
        }
        const created = await deps.store.connections.create({
          customer_id: customerId,
          provider: pending.provider,
          external_account_ids: grant.advertiserIds,
          credentials,
        });
        return back({ connected: created.account_id });
      },
    }),
  ];
}
