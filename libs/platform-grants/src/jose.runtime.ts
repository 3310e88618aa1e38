import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

/**
 * jose 6 is an ES module only. Node (>= 20.19) loads it with require(); jest's own module registry cannot, so it is
 * loaded through Node's require, which works the same in the service, under tsx and under jest.
 */
const nodeRequire = process.getBuiltinModule('node:module').createRequire(__filename);

export const jose = nodeRequire('jose') as typeof Jose;
