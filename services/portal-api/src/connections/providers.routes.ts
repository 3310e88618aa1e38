import { allProviders } from '@gateway/catalogue';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route';
import { ProviderIdSchema } from '../http/api.schemas';
import type { PortalDeps } from '../portal.deps';

const ProvidersSchema = z
  .object({
    providers: z.array(
      z.object({
        id: ProviderIdSchema,
        label: z.string().meta({ description: 'A few words for people (buttons, tables)' }),
        connect: z
          .enum(['authorization_page', 'key_pair'])
          .nullable()
          .meta({
            description:
              "How the portal connects it: authorization_page (POST /api/connections/grants, the platform's page), " +
              'key_pair (its own page /connections/{id}), or null (not offered by this deployment)',
          }),
      }),
    ),
  })
  .meta({ id: 'Providers' });

/**
 * The providers of the catalogue's one list, in its order, with their labels and how each is connected here (its
 * grant plug-in, if configured): the web app reads this once instead of a list of its own.
 */
export function providerRoutes(deps: PortalDeps): ApiRoute[] {
  const connectOf = (provider: string) =>
    deps.grants.some((grant) => grant.provider === provider)
      ? ('authorization_page' as const)
      : deps.keyPairFlows.some((flow) => flow.provider === provider)
        ? ('key_pair' as const)
        : null;
  const providers = allProviders().map((spec) => ({ id: spec.id, label: spec.label, connect: connectOf(spec.id) }));
  return [
    defineRoute({
      method: 'get',
      path: '/api/providers',
      operationId: 'listProviders',
      summary: 'The providers of the gateway, their labels, and how the portal connects each',
      tag: 'connections',
      auth: 'none',
      status: 200,
      response: ProvidersSchema,
      handler: async () => ({ providers }),
    }),
  ];
}
