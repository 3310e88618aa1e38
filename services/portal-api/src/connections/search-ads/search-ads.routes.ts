import {
  generateSearchAdsKeyPair,
  SearchAdsGrantError,
  type SearchAdsApiUser,
  type SearchAdsToken,
} from '@gateway/platform-grants';
import { z } from 'zod';
import type { ProviderId } from '@gateway/store';
import { defineRoute, signedIn, type ApiRoute } from '../../http/api-route';
import { AccountIdSchema, InstantSchema } from '../../http/api.schemas';
import { PortalError } from '../../http/portal-problem';
import type { PortalDeps } from '../../portal.deps';
import { ConnectionSchema, requireConnectionRoom, toConnection } from '../connections.routes';
import type { PendingKeySecrets } from './search-ads-key.store';
import type { SearchAdsPortal } from './search-ads.flow';

/**
 * search-ads connects without a redirect (docs/portal.md, "search-ads"): the portal makes an EC P-256 key pair and
 * answers only the public key; the customer registers it as an API user on the platform and enters the client id,
 * team id and key id; a token minted with the private key proves the registration and lists the organizations;
 * the chosen organization becomes one connection. The private key never leaves the portal: it is sealed at rest
 * (pending keys, then the connection's credentials) and is in no answer and no log.
 */
export const SEARCH_ADS: ProviderId = 'search-ads';
const PROVIDER = SEARCH_ADS;
/** The first step; the generic grant route names it when asked for an authorization page of search-ads. */
export const SEARCH_ADS_KEYS_PATH = '/api/connections/search-ads/keys';
/** A stored token closer than this to its expiry is minted again before it becomes a connection's. */
const TOKEN_REUSE_MARGIN_MS = 10 * 60 * 1000;

const PendingIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a pending key id')
  .meta({ description: 'The pending key pair of this connect flow (from createSearchAdsKey)' });
/** The platform's ids (`SEARCHADS.<uuid>`, uuids); pasted by hand, so spaces around them are dropped. */
const PlatformIdSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must be the id as the platform shows it');

const OrgSchema = z
  .object({
    org_id: z.number().int().meta({ description: "The platform's organization id (orgId)" }),
    org_name: z.string(),
    currency: z.string(),
    time_zone: z.string(),
  })
  .meta({ id: 'SearchAdsOrg' });

export function searchAdsRoutes(deps: PortalDeps, flow: SearchAdsPortal): ApiRoute[] {
  const pendingOf = async (customerId: string, pendingId: string) => {
    const pending = await flow.keys.find(customerId, pendingId);
    if (pending === null) {
      throw new PortalError('not_found', 'no such pending key (it expired or was used): generate a new key');
    }
    return pending;
  };

  /** The customer's search-ads connection of this account id, or 404. */
  const ownConnection = async (customerId: string, accountId: string) => {
    const connection = await deps.store.connections.findByAccountId(accountId);
    if (connection === null || connection.customer_id !== customerId || connection.provider !== PROVIDER) {
      throw new PortalError('not_found', `no search-ads connection ${accountId}`);
    }
    return connection;
  };

  const mint = async (user: SearchAdsApiUser): Promise<SearchAdsToken> => {
    try {
      return await flow.grant.mintToken(user);
    } catch (error) {
      throw portalErrorOf(error);
    }
  };

  return [
    defineRoute({
      method: 'post',
      path: SEARCH_ADS_KEYS_PATH,
      operationId: 'createSearchAdsKey',
      summary:
        'Starts connecting search-ads: makes a key pair and answers its public key, to register as an API user on ' +
        "the platform's page (api_users_url). With account_id it re-grants that connection (same account id).",
      tag: 'connections',
      auth: 'session',
      body: z.strictObject({ account_id: AccountIdSchema.optional() }),
      status: 201,
      response: z
        .object({
          pending_id: PendingIdSchema,
          public_key_pem: z.string().meta({ description: 'SPKI PEM of the EC P-256 public key' }),
          api_users_url: z.url().meta({ description: "The platform's page where an API user is created" }),
          expires_at: InstantSchema,
        })
        .meta({ id: 'SearchAdsKey' }),
      errors: ['connection_limit_reached', 'provider_not_in_plan', 'grant_not_supported', 'not_found'],
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const accountId = ctx.body.account_id ?? null;
        if (accountId === null) {
          const plan = await requireConnectionRoom(deps, customerId);
          if (!plan.providers.includes(PROVIDER)) throw new PortalError('provider_not_in_plan');
        } else {
          await ownConnection(customerId, accountId);
        }
        const pair = await generateSearchAdsKeyPair();
        const { pendingId, expiresAt } = await flow.keys.create(
          customerId,
          accountId,
          pair.privateKeyPem,
          flow.keyTtlMs,
        );
        return {
          pending_id: pendingId,
          public_key_pem: pair.publicKeyPem,
          api_users_url: flow.apiUsersUrl,
          expires_at: expiresAt.toISOString(),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/connections/search-ads/verify',
      operationId: 'verifySearchAdsApiUser',
      summary:
        "Checks the API user's client id, team id and key id by minting a token with the pending key, and answers " +
        'the organizations it may access (the platform /acls)',
      tag: 'connections',
      auth: 'session',
      body: z.strictObject({
        pending_id: PendingIdSchema,
        client_id: PlatformIdSchema,
        team_id: PlatformIdSchema,
        key_id: PlatformIdSchema,
      }),
      status: 200,
      response: z.object({ orgs: z.array(OrgSchema) }).meta({ id: 'SearchAdsOrgs' }),
      errors: ['not_found', 'api_user_refused', 'grant_failed', 'grant_not_supported'],
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const pending = await pendingOf(customerId, ctx.body.pending_id);
        const user: SearchAdsApiUser = {
          clientId: ctx.body.client_id,
          teamId: ctx.body.team_id,
          keyId: ctx.body.key_id,
          privateKeyPem: pending.secrets.private_key,
        };
        const token = await mint(user);
        let orgs;
        try {
          orgs = await flow.grant.listOrgs(token.accessToken);
        } catch (error) {
          throw portalErrorOf(error);
        }
        const listed = orgs.map((org) => ({
          org_id: org.orgId,
          org_name: org.orgName,
          currency: org.currency,
          time_zone: org.timeZone,
        }));
        const secrets: PendingKeySecrets = {
          private_key: pending.secrets.private_key,
          api_user: {
            client_id: user.clientId,
            team_id: user.teamId,
            key_id: user.keyId,
            access_token: token.accessToken,
            access_token_expires_at: token.expiresAt,
            orgs: listed,
          },
        };
        if (!(await flow.keys.update(customerId, ctx.body.pending_id, secrets))) {
          throw new PortalError('not_found', 'no such pending key (it expired or was used): generate a new key');
        }
        return { orgs: listed };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/connections/search-ads',
      operationId: 'connectSearchAds',
      summary:
        'Finishes connecting search-ads: the chosen organization of the verified API user becomes a connection ' +
        '(or renews the connection of the re-grant, or the one of the same organization: same account id)',
      tag: 'connections',
      auth: 'session',
      body: z.strictObject({
        pending_id: PendingIdSchema,
        org_id: z.number().int().positive().meta({ description: 'One org_id of verifySearchAdsApiUser' }),
      }),
      status: 201,
      response: z
        .object({
          account_id: z.string().meta({ description: 'The id to send as X-Account-Id' }),
          regranted: z.boolean().meta({ description: 'An existing connection was renewed (its account id kept)' }),
          connection: ConnectionSchema,
        })
        .meta({ id: 'SearchAdsConnected' }),
      errors: [
        'not_found',
        'connection_limit_reached',
        'provider_not_in_plan',
        'other_account',
        'api_user_refused',
        'grant_failed',
        'grant_not_supported',
      ],
      handler: async (ctx) => {
        const { customerId } = signedIn(ctx);
        const pending = await pendingOf(customerId, ctx.body.pending_id);
        const apiUser = pending.secrets.api_user;
        if (apiUser === undefined) {
          throw new PortalError('invalid_request', 'enter the API user ids first (verifySearchAdsApiUser)', {
            errors: [{ path: 'pending_id', message: 'the API user of this key is not verified yet' }],
          });
        }
        const orgId = ctx.body.org_id;
        if (!apiUser.orgs.some((org) => org.org_id === orgId)) {
          throw new PortalError('invalid_request', 'the API user has no access to this organization', {
            errors: [{ path: 'org_id', message: 'must be one of the organizations of the API user' }],
          });
        }
        const externalIds = [String(orgId)];

        // Which connection this becomes: the re-grant's (same organization only), the customer's connection of
        // the same organization (spec 3: renewed, same account id), or a new one while the plan has room.
        let target: string | null = null;
        if (pending.accountId !== null) {
          const connection = await ownConnection(customerId, pending.accountId);
          if (connection.external_account_ids.join(',') !== externalIds.join(',')) {
            throw new PortalError(
              'other_account',
              `this connection is organization ${connection.external_account_ids.join(', ')}; choose that one`,
            );
          }
          target = connection.account_id;
        } else {
          const same = (await deps.store.connections.listByCustomer(customerId)).find(
            (c) => c.provider === PROVIDER && c.external_account_ids.join(',') === externalIds.join(','),
          );
          if (same !== undefined) target = same.account_id;
          else {
            const plan = await requireConnectionRoom(deps, customerId);
            if (!plan.providers.includes(PROVIDER)) throw new PortalError('provider_not_in_plan');
          }
        }

        const user: SearchAdsApiUser = {
          clientId: apiUser.client_id,
          teamId: apiUser.team_id,
          keyId: apiUser.key_id,
          privateKeyPem: pending.secrets.private_key,
        };
        const stored: SearchAdsToken = {
          accessToken: apiUser.access_token,
          expiresAt: apiUser.access_token_expires_at,
        };
        const token = Date.parse(stored.expiresAt) - Date.now() > TOKEN_REUSE_MARGIN_MS ? stored : await mint(user);
        // One pending key makes one connection, even when the form is sent twice.
        if (!(await flow.keys.take(customerId, ctx.body.pending_id))) {
          throw new PortalError('not_found', 'no such pending key (it expired or was used): generate a new key');
        }
        const account = flow.grant.grantedAccount(user, token, orgId);
        if (target !== null) {
          const renewed = await deps.store.connections.regrant(target, account.credentials, account.externalAccountIds);
          if (renewed === null) throw new PortalError('not_found', `no search-ads connection ${target}`);
          // Keys that follow the customer's connections (OAuth keys) use it on the next request.
          await deps.lifecycle.connectionsChanged(customerId);
          return { account_id: renewed.account_id, regranted: true, connection: toConnection(renewed) };
        }
        const created = await deps.store.connections.create({
          customer_id: customerId,
          provider: PROVIDER,
          external_account_ids: account.externalAccountIds,
          credentials: account.credentials,
        });
        await deps.lifecycle.connectionsChanged(customerId);
        return { account_id: created.account_id, regranted: false, connection: toConnection(created) };
      },
    }),
  ];
}

/** The platform's refusal as the portal's error; never carries a key, an assertion or a token. */
function portalErrorOf(error: unknown): unknown {
  if (!(error instanceof SearchAdsGrantError)) return error;
  if (error.reason === 'invalid_client') {
    return new PortalError(
      'api_user_refused',
      'The platform does not accept this API user: check the client id, team id and key id, and that the public ' +
        'key you registered is the one shown here.',
    );
  }
  return new PortalError('grant_failed', `search-ads: ${error.message}`);
}
