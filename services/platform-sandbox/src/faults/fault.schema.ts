import { z } from 'zod';

/** Names of the platform modules a fault can be limited to (the registry's, in its order). */
export type FaultModules = readonly [string, ...string[]];

export const FAULT_KINDS = [
  'latency',
  'hang',
  'status_500',
  'rate_limit',
  'malformed',
  'truncated',
  'reset',
  'huge',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const DEFAULT_LATENCY_MS = 5000;
/** 50 MiB: well above what a gateway should hold in memory for one answer. */
export const DEFAULT_HUGE_BYTES = 52_428_800;
const MAX_LATENCY_MS = 600_000;
/** A 1 GiB answer is streamed in chunks, so the bound is about test run time, not sandbox memory. */
const MAX_HUGE_BYTES = 1_073_741_824;
/** The smallest answer that still holds the JSON frame of a huge answer. */
export const MIN_HUGE_BYTES = 64;

/** POST /_sandbox/faults: strict, so a misspelt field is a 400 rather than a fault that silently does less. */
export function faultBodySchema(modules: FaultModules) {
  const common = {
    module: z.enum(modules).optional(),
    path_prefix: z.string().startsWith('/', 'path_prefix must start with "/"').max(2048).optional(),
    count: z.number().int().positive().optional(),
  };
  const withoutOptions = (kind: Exclude<FaultKind, 'latency' | 'huge'>) =>
    z.object({ kind: z.literal(kind), ...common }).strict();
  return z.discriminatedUnion(
    'kind',
    [
      z
        .object({
          kind: z.literal('latency'),
          ...common,
          latency_ms: z.number().int().min(0).max(MAX_LATENCY_MS).default(DEFAULT_LATENCY_MS),
        })
        .strict(),
      z
        .object({
          kind: z.literal('huge'),
          ...common,
          size_bytes: z.number().int().min(MIN_HUGE_BYTES).max(MAX_HUGE_BYTES).default(DEFAULT_HUGE_BYTES),
        })
        .strict(),
      withoutOptions('hang'),
      withoutOptions('status_500'),
      withoutOptions('rate_limit'),
      withoutOptions('malformed'),
      withoutOptions('truncated'),
      withoutOptions('reset'),
    ],
    {
      error: (issue) => (issue.code === 'invalid_union' ? `kind must be one of ${FAULT_KINDS.join(', ')}` : undefined),
    },
  );
}
export type FaultBodySchema = ReturnType<typeof faultBodySchema>;
export type FaultSpec = z.infer<FaultBodySchema>;

export type ParsedFault = { ok: true; spec: FaultSpec } | { ok: false; message: string };

/** The body as a fault, or one readable sentence naming every problem ("count: ...; latency_ms: ..."). */
export function parseFaultBody(schema: FaultBodySchema, body: unknown): ParsedFault {
  if (body === undefined) return { ok: false, message: 'the body must be a JSON object' };
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, spec: parsed.data };
  const problems = parsed.error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message,
  );
  return { ok: false, message: `invalid fault: ${problems.join('; ')}` };
}
