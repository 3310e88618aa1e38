import type { Model, ProjectionType } from 'mongoose';

/**
 * Every collection of the store keys its documents by their natural id: api_keys by the key hash, customers by
 * customer_id, plans by name, connections by account_id, api_key_activity by key_id, monthly_usage by
 * `${key_id}:${month}`. The id fields stay in the documents as well (readers and indexes use them).
 *
 * Why: FerretDB 1.24 with its SQLite backend (development and CI) hands SQLite only a filter that is exactly
 * `{ _id: <string> }` (internal/backends/sqlite/collection.go: one key, `_id`, string or ObjectId); any other filter,
 * including `_id` plus a second condition or `_id: { $in }`, reads and decodes the whole collection. Measured at
 * 1,500 documents: `{ _id }` 5-9 ms, `{ _id, epoch }` 45 ms, `{ key_id, month }` 65 ms, `{ _id: { $in: [2 ids] } }`
 * 105 ms against 26 ms for two `{ _id }` lookups in parallel. MongoDB answers all of them from an index; there the
 * natural `_id` saves one index per lookup.
 */

/** Above this many ids one `$in` query replaces the parallel lookups (a bounded fan-out; one scan on FerretDB). */
const PARALLEL_LOOKUPS = 16;

/** The documents with these `_id`s (in no particular order; unknown ids are left out), one `{ _id }` query each. */
export async function findByIds<T, R>(
  model: Model<T>,
  ids: readonly string[],
  projection: ProjectionType<T>,
): Promise<R[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length > PARALLEL_LOOKUPS) {
    return model.find({ _id: { $in: unique } }, projection).lean<R[]>();
  }
  const docs = await Promise.all(unique.map((id) => model.findOne({ _id: id }, projection).lean<R>()));
  return docs.filter((doc): doc is NonNullable<typeof doc> => doc !== null);
}
