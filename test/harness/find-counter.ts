import type { Connection } from 'mongoose';

/**
 * Counts the find commands (findOne included: the driver sends it as a find) that any collection of the connection's
 * driver sends, until stop() puts the driver back.
 */
export function countFinds(connection: Connection): { stop(): number } {
  const prototype = Object.getPrototypeOf(connection.db!.collection('api_keys')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const original = prototype.find!;
  let finds = 0;
  prototype.find = function (this: unknown, ...args: unknown[]) {
    finds++;
    return original.apply(this, args);
  };
  return {
    stop() {
      prototype.find = original;
      return finds;
    },
  };
}
