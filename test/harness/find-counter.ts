import type { Connection } from 'mongoose';

/**
 * Counts the find commands (findOne included: the driver sends it as a find) that any collection of the connection's
 * driver sends, or only `collection`, until stop() puts the driver back.
 */
export function countFinds(connection: Connection, collection?: string): { stop(): number } {
  const prototype = Object.getPrototypeOf(connection.db!.collection('api_keys')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const original = prototype.find!;
  let finds = 0;
  prototype.find = function (this: { collectionName: string }, ...args: unknown[]) {
    if (collection === undefined || this.collectionName === collection) finds++;
    return original.apply(this, args);
  };
  return {
    stop() {
      prototype.find = original;
      return finds;
    },
  };
}
