/**
 * Turns the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module)
 * into the standalone, strict JSON schemas kubeconform reads from a local directory, the same transformation
 * as the openapi2jsonschema script behind the public kubernetes-json-schema sets:
 *   - every $ref inlined (a schema per kind, no shared definitions file);
 *   - strict: objects with properties refuse unknown properties, as the API server's strict field validation does;
 *   - int-or-string fields accept both, Quantity fields accept numbers and strings (as kubectl does);
 *   - kind and apiVersion pinned to the kind's own values.
 *
 *   node --import tsx scripts/ci/k8s-json-schemas.ts <swagger.json> <out-dir>
 *
 * Files are named as kubeconform looks them up: <kind><-group prefix>-<version>.json, e.g.
 * deployment-apps-v1.json, service-v1.json, networkpolicy-networking-v1.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Schema = Record<string, unknown>;

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const DEFINITIONS = '#/definitions/';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Inlines every reference; a type that contains itself (JSONSchemaProps) is left open below its first level. */
function inline(schema: unknown, definitions: Record<string, Schema>, stack: string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, definitions, stack));
  if (!isObject(schema)) return schema;
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith(DEFINITIONS)) {
    const name = ref.slice(DEFINITIONS.length);
    if (name === QUANTITY) return { oneOf: [{ type: 'string' }, { type: 'number' }] };
    if (stack.includes(name)) return {};
    const target = definitions[name];
    if (target === undefined) throw new Error(`unresolved reference ${ref}`);
    return inline(target, definitions, [...stack, name]);
  }
  if (schema.format === 'int-or-string') return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // Descriptions are most of the document's size and no part of validation.
    if (key === 'description' || key.startsWith('x-kubernetes-')) continue;
    out[key] = key === 'properties' ? inlineProperties(value, definitions, stack) : inline(value, definitions, stack);
  }
  if (isObject(out.properties) && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function inlineProperties(properties: unknown, definitions: Record<string, Schema>, stack: string[]): Schema {
  const out: Schema = {};
  for (const [name, value] of Object.entries(properties as Schema)) out[name] = inline(value, definitions, stack);
  return out;
}

export function kindSuffix({ group, version }: GroupVersionKind): string {
  return group === '' ? `-${version}` : `-${group.split('.')[0]!.toLowerCase()}-${version}`;
}

/** The schemas of every kind of the document, by file name. */
export function kubernetesJsonSchemas(swagger: { definitions: Record<string, Schema> }): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const [name, definition] of Object.entries(swagger.definitions)) {
    const kinds = definition['x-kubernetes-group-version-kind'];
    if (!Array.isArray(kinds)) continue;
    for (const gvk of kinds as GroupVersionKind[]) {
      // The meta/v1 types (DeleteOptions, WatchEvent, ...) are listed under every group: not manifests.
      if (name.startsWith('io.k8s.apimachinery.')) continue;
      const schema = inline(definition, swagger.definitions, [name]) as Schema;
      const properties = schema.properties as Schema;
      const apiVersion = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
      properties.apiVersion = { type: 'string', enum: [apiVersion] };
      properties.kind = { type: 'string', enum: [gvk.kind] };
      schema.$schema = 'http://json-schema.org/schema#';
      schemas.set(`${gvk.kind.toLowerCase()}${kindSuffix(gvk)}.json`, schema);
    }
  }
  return schemas;
}

function main(argv: string[]): void {
  const [swaggerPath, outDir] = argv;
  if (!swaggerPath || !outDir) {
    process.stderr.write('usage: k8s-json-schemas.ts <swagger.json> <out-dir>\n');
    process.exit(2);
  }
  const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8')) as { definitions: Record<string, Schema> };
  const schemas = kubernetesJsonSchemas(swagger);
  mkdirSync(outDir, { recursive: true });
  for (const [file, schema] of schemas) writeFileSync(join(outDir, file), JSON.stringify(schema));
  process.stdout.write(`${schemas.size} schemas written to ${outDir}\n`);
}

if (require.main === module) main(process.argv.slice(2));
