import type { Connection } from 'mongoose';

/**
 * Runs tasks for the same document one after another, within this process.
 *
 * Why: FerretDB 1.24's SQLite backend applies an update as a read followed by a whole-document write,
 * outside a transaction (FerretDB issue #3040). Concurrent updates of one document therefore lose writes
 * ($inc counts vanish; a conditional update can "win" twice). MongoDB 7 applies each update atomically,
 * where this costs nothing but a queue. Serialising per document in-process covers the writers we have:
 * each document has one writing process (the key's actor owns its usage; portal-api owns keys and
 * connections). Documents written by two processes are kept apart by design instead (see
 * api-key-activity.model.ts).
 */
export class DocumentLock {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(document: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(document) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(document, tail);
    void tail.then(() => {
      if (this.tails.get(document) === tail) this.tails.delete(document);
    });
    return result;
  }

  /** Documents with a task queued or running (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

const locks = new WeakMap<Connection, DocumentLock>();

/** One lock per mongoose connection, shared by every repository built on it. */
export function documentLockFor(connection: Connection): DocumentLock {
  let lock = locks.get(connection);
  if (lock === undefined) {
    lock = new DocumentLock();
    locks.set(connection, lock);
  }
  return lock;
}
