import { z } from 'zod';

/** The plaintext inside a connection's sealed credentials. Unknown fields are refused, not silently dropped. */
export const PlatformCredentialsSchema = z.strictObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  /** ISO 8601 instants. */
  access_token_expires_at: z.iso.datetime({ offset: true }).optional(),
  refresh_token_expires_at: z.iso.datetime({ offset: true }).optional(),
  scope: z.string().optional(),
  /** Provider values of the connection that are not tokens (a shop's cipher, an org id); sealed with the rest. */
  attributes: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.string().max(4096)).optional(),
});

export type PlatformCredentials = z.infer<typeof PlatformCredentialsSchema>;

/** Validates credentials; the error names the offending fields only, never their values. */
export function parsePlatformCredentials(
  value: unknown,
): { ok: true; credentials: PlatformCredentials } | { ok: false; fields: string[] } {
  const result = PlatformCredentialsSchema.safeParse(value);
  if (result.success) return { ok: true, credentials: result.data };
  const fields = result.error.issues.map((issue) =>
    issue.path.length > 0 ? issue.path.join('.') : issue.code === 'unrecognized_keys' ? 'unknown field' : '(root)',
  );
  return { ok: false, fields: [...new Set(fields)] };
}
