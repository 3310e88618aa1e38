import { z } from 'zod';
import type { ApiRoute } from './api-route';
import { ProblemSchema } from './api.schemas';
import { PORTAL_ERRORS, type PortalErrorCode } from './portal-problem';

type JsonSchema = Record<string, unknown>;

/** Named schemas (`.meta({ id })`) become components; the rest is inlined where used. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  // Schemas with a registry id come out as $defs; OpenAPI keeps them under components.
  const relinked = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
    $schema?: string;
  };
  const { $defs, $schema: _dialect, ...rest } = relinked;
  for (const [id, def] of Object.entries($defs ?? {})) components[id] = def;
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id === 'string') {
    const ref = `#/components/schemas/${id}`;
    // A named root comes back either inline or as a $ref to its own $defs entry (already copied above).
    if (rest.$ref !== ref) {
      const { id: _id, ...body } = rest;
      components[id] = body;
    }
    return { $ref: ref };
  }
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query', components: Record<string, JsonSchema>) {
  if (!schema) return [];
  const json = schemaOf(schema, 'input', components) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

/** OpenAPI 3.1 (its schemas are JSON Schema 2020-12, what z.toJSONSchema emits) of the portal's JSON API. */
export function openApiDocument(routes: ApiRoute[], serverUrl: string): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const problem = schemaOf(ProblemSchema, 'output', components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const errors: PortalErrorCode[] = [
      'invalid_request',
      ...(route.auth === 'session' ? (['not_signed_in'] as const) : []),
      ...(route.method === 'get' ? [] : (['csrf_failed'] as const)),
      ...(route.errors ?? []),
    ];
    const responses: Record<string, unknown> = {
      [route.status]: {
        description: route.status === 302 ? 'Redirect' : route.status === 204 ? 'No content' : 'Success',
        ...(route.response
          ? { content: { 'application/json': { schema: schemaOf(route.response, 'output', components) } } }
          : {}),
      },
    };
    for (const code of errors) {
      const status = String(PORTAL_ERRORS[code].status);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}; ${code}` : code,
        content: { 'application/problem+json': { schema: problem } },
      };
    }
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      ...(route.auth === 'session' ? { security: [{ session: [] }] } : { security: [] }),
      parameters: [
        ...parametersOf(route.params, 'path', components),
        ...parametersOf(route.query, 'query', components),
        ...(route.method === 'get'
          ? []
          : [{ name: 'X-CSRF-Token', in: 'header', required: true, schema: { type: 'string' } }]),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: schemaOf(route.body, 'input', components) } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Data gateway key portal API',
      version: '1',
      description:
        'The JSON API behind the key portal. Sessions are HttpOnly cookies; every state change needs the ' +
        'X-CSRF-Token header equal to the CSRF cookie (GET /api/csrf).',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'dg_session' } },
    },
  };
}
