import type { Connection, mongo } from 'mongoose';
import { monthlyUsageId } from './monthly-usage.model';
import { isDuplicateKeyError } from './store-error';

type StoredDocument = { _id: mongo.ObjectId | string; [field: string]: unknown };
type NaturalId = (doc: StoredDocument) => unknown;

/** Where each collection's natural `_id` comes from (natural-ids.ts). */
const NATURAL_IDS: Readonly<Record<string, NaturalId>> = {
  plans: (doc) => doc.name,
  customers: (doc) => doc.customer_id,
  connections: (doc) => doc.account_id,
  api_keys: (doc) => doc.hash,
  api_key_activity: (doc) => doc.key_id,
  monthly_usage: (doc) =>
    typeof doc.key_id === 'string' && typeof doc.month === 'string' ? monthlyUsageId(doc.key_id, doc.month) : null,
};

// Documents per delete and insert: FerretDB deletes by `_id: { $in }` with one read of the collection, and writes
// one insert in one SQLite transaction (the .local data of 2,300 documents: 33 s one by one, a few seconds so).
const CHUNK = 500;

/**
 * Databases written before the natural ids (the local stack's .local data, old test databases) hold documents
 * with ObjectId `_id`s, which lookups by `_id` never find: an old key would stop working, and an old customer found
 * by email could not be given a new key. Each such document is written again under its natural id with every field
 * kept, in chunks: the old documents are deleted first (the unique indexes on the id fields would refuse the copies),
 * then the copies inserted. Services starting together may both do it; a copy that is already there (inserted by
 * the other, or written since under the natural id) is left as it is. A crash between the two steps loses the chunk,
 * which is acceptable only because such databases are disposable. Nothing is found on a database created since (on
 * MongoDB an `_id` index range; on FerretDB one read of each collection). Returns how many documents were re-keyed.
 */
export async function rekeyLegacyDocuments(connection: Connection): Promise<number> {
  const db = connection.db!;
  let rekeyed = 0;
  for (const [name, naturalId] of Object.entries(NATURAL_IDS)) {
    const collection = db.collection<StoredDocument>(name);
    const rekey = async (chunk: StoredDocument[]) => {
      await collection.deleteMany({ _id: { $in: chunk.map((doc) => doc._id) } });
      const copies = chunk.map((doc) => ({ ...doc, _id: naturalId(doc) as string }));
      try {
        rekeyed += (await collection.insertMany(copies, { ordered: false })).insertedCount;
      } catch (error) {
        if (!onlyDuplicates(error)) {
          // Put back what has no copy (the unique indexes refuse the others), then report.
          await collection.insertMany(chunk, { ordered: false }).catch(() => undefined);
          throw error;
        }
        rekeyed += (error as { result?: { insertedCount?: number } }).result?.insertedCount ?? 0;
      }
    };
    let chunk: StoredDocument[] = [];
    for await (const doc of collection.find({ _id: { $type: 'objectId' } })) {
      // A document without its id field cannot be found either way; it is left as it is.
      const id = naturalId(doc);
      if (typeof id !== 'string' || id.length === 0) continue;
      chunk.push(doc);
      if (chunk.length === CHUNK) {
        await rekey(chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) await rekey(chunk);
  }
  return rekeyed;
}

function onlyDuplicates(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (Array.isArray(writeErrors) && writeErrors.length > 0) return writeErrors.every(isDuplicateKeyError);
  return isDuplicateKeyError(error);
}
