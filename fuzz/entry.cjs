// Jazzer.js loads its target with import(); this CommonJS entry requires the TypeScript target named by
// FUZZ_TARGET (fuzz/targets/<name>.fuzz.ts) through tsx's require hook, so Jazzer.js instruments the compiled code.
const path = require('node:path');

const name = process.env.FUZZ_TARGET;
if (!name || !/^[a-z0-9-]+$/.test(name)) throw new Error('set FUZZ_TARGET to a target name, e.g. allowlist');
const target = require(path.join(__dirname, 'targets', `${name}.fuzz.ts`));

exports.fuzz = function fuzz(data) {
  return target.fuzz(data);
};
