/** The error code of a small JSON envelope (`field` at the top level), or undefined when absent or not JSON. */
export function envelopeCode(body: Buffer, field: string): number | string | undefined {
  if (body.length === 0) return undefined;
  try {
    const value = (JSON.parse(body.toString('utf8')) as Record<string, unknown>)[field];
    return typeof value === 'number' || typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
