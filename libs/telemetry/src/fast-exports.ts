/**
 * TypeScript compiles a barrel's `export { name } from './module'` to CommonJS in two steps: every exported name is
 * first set to undefined (`exports.name = void 0`), then redefined as a getter. V8 turns an object whose data property
 * becomes an accessor into a dictionary, so every call a service makes through a library's barrel
 * (`(0, errors_1.requestIdOf)(...)`) looks the name up by hash and calls its getter, where an object with a stable
 * shape would let the optimising compiler fold the call's target into a constant (docs/benchmarks.md, "The refusal
 * path against node:http, symbol by symbol").
 *
 * V8 gives an object a fast shape again once it serves as the prototype of objects that property loads go through.
 * `fastenLibraryExports` does that to the exports of every library barrel loaded so far; the getters, and so the live
 * bindings, stay as they are. Nothing is read: the loads look for a symbol no module has.
 */
export function fastenLibraryExports(modules: NodeJS.Dict<NodeModule> = require.cache): number {
  let fastened = 0;
  for (const [file, entry] of Object.entries(modules)) {
    const exports: unknown = entry?.exports;
    if (!LIBRARY_BARREL.test(file) || typeof exports !== 'object' || exports === null) continue;
    loadThroughPrototype(exports);
    fastened++;
  }
  return fastened;
}

/** The entry point of one of the repository's libraries, compiled (dist/index.js) or from source (src/index.ts). */
const LIBRARY_BARREL = /[\\/]libs[\\/][a-z-]+[\\/](?:dist[\\/]index\.js|src[\\/]index\.ts)$/;

const ABSENT = Symbol('absent');

/**
 * V8 allocates a function's load feedback only after some calls, and makes the prototypes fast when it fills that
 * feedback: the loads are repeated well past that count.
 */
const LOADS = 32;

function loadThroughPrototype(prototype: object): void {
  const receiver = Object.create(prototype) as Record<symbol, unknown>;
  for (let i = 0; i < LOADS; i++) readAbsent(receiver);
}

function readAbsent(receiver: Record<symbol, unknown>): unknown {
  return receiver[ABSENT];
}
