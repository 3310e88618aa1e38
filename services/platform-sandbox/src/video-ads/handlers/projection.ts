/** A record with only the asked `fields`, in the asked order; all fields when none were asked. */
export function project(
  record: Record<string, unknown>,
  fields: readonly string[] | undefined,
): Record<string, unknown> {
  if (!fields) return record;
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = record[field];
  return out;
}
